// The one sentence that names a leak row for people, shared by every format
// of `heapleak check` (text, SARIF, JUnit): what leaked, who holds it and
// what it keeps alive, e.g. "300 User, 300 Hash and 2 more classes (2,700
// objects) allocated here are held by Hash in UserCache: 168.8 KiB retained".
#pragma once

#include <string>

#include "core/diagnosis/leak_row.h"

namespace heapleak::results {

// `at_sites`: the sentence is attached to the row's allocation sites (SARIF
// on a traced dump), so it says "allocated here".
std::string leak_sentence(const LeakCluster& row, bool at_sites);

}  // namespace heapleak::results
