// Text renderings shared by the one-shot CLI's commands: one object in a
// line, a root path in a line; byte counts come from results/text.
#pragma once

#include <string>

#include "core/heap.h"
#include "core/root_paths.h"
#include "results/text/human_bytes.h"

namespace heapleak::cli {

using text::human_bytes;  // "80 B", "84.6 KiB", "1.5 MiB"

std::string describe_object(const Heap& heap, ObjectIndex i);  // "0x.. User (app/user.rb:3)"
std::string describe_path(const Heap& heap,
                          const RootPath& path);  // "ROOT vm -> 0x.. Foo -> ..." (Ruby names)

}  // namespace heapleak::cli
