// What /proc/self/smaps says of the mapping holding an address: for tests
// of where memory lives (huge pages, pages given back to the kernel).
#pragma once

#include <string>
#include <string_view>

namespace heapleak::test {

// The text after "FIELD:" (e.g. "Rss", "VmFlags") in the entry of the
// mapping that holds `address`, or "" when no mapping holds it.
std::string smaps_field(const void* address, std::string_view field);

}  // namespace heapleak::test
