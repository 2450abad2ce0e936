// SipHash-2-4: a keyed hash (a pseudorandom function of a 128-bit key), for
// redaction, where the value must not be recoverable without the key. Not
// for hash tables of trusted keys: core/base/checksum.h is faster there.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace heapleak {

using SipKey = std::array<std::uint8_t, 16>;

std::uint64_t siphash24(const SipKey& key, std::string_view data);

}  // namespace heapleak
