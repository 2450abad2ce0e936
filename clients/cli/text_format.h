// Text renderings shared by the one-shot CLI's commands: one object in a
// line, a root path in a line, byte counts for people.
#pragma once

#include <string>

#include "core/heap.h"
#include "core/root_paths.h"

namespace heapleak::cli {

std::string describe_object(const Heap& heap, ObjectIndex i);  // "0x.. User (app/user.rb:3)"
std::string describe_path(const Heap& heap,
                          const RootPath& path);  // "ROOT vm -> 0x.. Foo -> ..." (Ruby names)
std::string human_bytes(std::uint64_t bytes);     // "1.5 MiB"

}  // namespace heapleak::cli
