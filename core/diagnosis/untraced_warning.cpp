#include "core/diagnosis/untraced_warning.h"

#include <string>

namespace heapleak {

void warn_if_untraced(LeakDiff& diff, const Heap& target, GroupBy group_by) {
  if (group_by == GroupBy::kClass || target.report().traced) return;
  diff.warnings.push_back(
      "--by " + std::string(group_by_name(group_by)) + ": allocation tracing was off in " +
      target.report().path +
      " (no file, line or generation recorded), so every object falls in one group; dump with "
      "ObjectSpace.trace_object_allocations_start, or group by class");
}

}  // namespace heapleak
