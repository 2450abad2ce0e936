// Byte counts for people, one rule for both CLIs (heapleak and
// heapleak-client) and the VS Code extension's copy: IEC units, one decimal
// past bytes, and the next unit from 1000 on ("80 B", "84.6 KiB", "1.0 MiB",
// never "1022.0 KiB"), so one heap prints the same sizes everywhere.
#pragma once

#include <cstdint>
#include <string>

namespace heapleak::text {

std::string human_bytes(double bytes);

// Counts for people: 12345 -> "12,345".
std::string grouped(std::uint64_t n);

}  // namespace heapleak::text
