// The `files` member of a leak result (stats, explain): the dumps A B [C]
// named for the result's header, by the one rule heapleakd and the one-shot
// heapleak share: each file's name, or every whole path when two dumps share
// a name (the same name in two folders must not read as one dump).
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

namespace heapleak::results {

// {"baseline": A, "target": B, "later"?: C} for paths A B [C]; for a series
// D1..DN (N >= 4), baseline D1, target D(N-1), later DN and `dumps`, every
// one in order (explain reads a series so).
boost::json::object dump_files_json(const std::vector<std::string>& paths);

}  // namespace heapleak::results
