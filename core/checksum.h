// XXH64 (Yann Collet's xxHash, 64-bit variant), written out here: the
// checksum of cache image sections and of a dump's head and tail. Fast
// (several GB/s on one core) and good at catching flipped or torn bytes; not
// a cryptographic hash, which the cache does not need.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heapleak {

std::uint64_t xxh64(const void* data, std::size_t bytes, std::uint64_t seed = 0);

}  // namespace heapleak
