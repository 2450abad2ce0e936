#include "core/graph/root_paths.h"

#include <algorithm>

#include "core/heap/naming.h"

namespace heapleak {

RootPaths::RootPaths(const Heap& heap) : parent_(heap.size(), kUnreached) {
  // A Column, as parent_ is: huge pages where the kernel has them, not
  // 4 KiB faults (a fifth of explain's faults on syn1700 were this queue's).
  Column<ObjectIndex> queue;
  queue.reserve(heap.size());
  const auto& roots = heap.roots();
  // The machine stack's words go last: an object a constant or the VM also
  // reaches is shown by that path ("ROOT vm -> Object -> Cache"), not by
  // whichever C local pointed at it when the dump was taken, and an object
  // reached only from the stack is one the program keeps nowhere else.
  const auto seed = [&](bool machine_stack) {
    for (std::uint32_t category = 0; category < roots.size(); ++category) {
      if ((root_kind(roots[category].name) == RootKind::kMachineStack) != machine_stack) continue;
      for (ObjectIndex target : roots[category].targets) {
        if (parent_[target] != kUnreached) continue;  // the first category to name it wins
        parent_[target] = kRootBase + category;
        queue.push_back(target);
      }
    }
  };
  const auto search = [&](std::size_t head) {
    for (; head < queue.size(); ++head) {
      const ObjectIndex current = queue[head];
      auto visit = [&](ObjectIndex next) {
        if (parent_[next] != kUnreached) return;
        parent_[next] = current;
        queue.push_back(next);
      };
      for (ObjectIndex next : heap.references(current)) visit(next);
      // After the references: a path names a reference over the class when both reach.
      if (const ObjectIndex klass = heap.class_edge(current); klass != kNoObject) visit(klass);
    }
  };
  seed(false);
  search(0);
  const std::size_t from_stack = queue.size();
  seed(true);
  search(from_stack);
  reachable_ = queue.size();
}

RootPath RootPaths::path_to(const Heap& heap, ObjectIndex i) const {
  RootPath result;
  if (!reachable(i)) return result;
  ObjectIndex current = i;
  while (parent_[current] < kRootBase) {
    result.path.push_back(current);
    current = parent_[current];
  }
  result.path.push_back(current);
  std::reverse(result.path.begin(), result.path.end());
  result.root = heap.roots()[parent_[current] - kRootBase].name;
  // Fields objects are part of their owner: drop them (never the object asked about).
  auto& path = result.path;
  path.erase(std::remove_if(path.begin(), path.end() - 1,
                            [&](ObjectIndex y) { return is_fields_object(heap, y); }),
             path.end() - 1);
  auto visible = std::find_if(path.begin(), path.end(),
                              [&](ObjectIndex y) { return !is_vm_internal(heap, y); });
  if (visible != path.begin() && visible != path.end()) {
    result.root_via.assign(path.begin(), visible);
    path.erase(path.begin(), visible);
  }
  return result;
}

Result<RootPath> path_to_root(const Heap& heap, ObjectIndex i) {
  if (heap.roots().empty()) {
    return make_error(ErrorReason::kNoAnswer,
                      "this dump has no ROOT records (a partial dump, written with `since:`?), "
                      "so no object can be traced to a GC root");
  }
  if (!heap.has_edges()) {
    return make_error(ErrorReason::kInvalidArgument, "the heap was loaded without references");
  }
  RootPath path = heap.root_paths().path_to(heap, i);
  if (path.path.empty()) {
    return make_error(ErrorReason::kNoAnswer,
                      format_address(heap.address(i)) +
                          " is not reachable from any GC root in this dump (garbage not yet "
                          "collected, or held only through a reference the dump does not list)");
  }
  return path;
}

// Heap's cache of its root paths (core/heap/heap.h): filled here, where they
// are known, so the heap model includes no analysis.
const RootPaths& Heap::root_paths() const {
  return root_paths_.get<RootPaths>([this] { return std::make_unique<const RootPaths>(*this); });
}

void Heap::seed_root_paths(std::unique_ptr<const RootPaths> paths) const {
  root_paths_.seed(std::move(paths));
}

}  // namespace heapleak
