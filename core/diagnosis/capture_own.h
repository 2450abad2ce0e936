// heapleak-capture's own objects in a dump: the capture gem runs inside the
// process it dumps, so its threads, control socket and what they hold are in
// every dump it takes. A leak row they hold is the gem's, filed apart
// (NoiseReason::kCaptureOwn), never the program's leak: known by the gem's
// threads the manifest lists, its classes (Heapleak::Capture::*) and files.
#pragma once

#include <vector>

#include "core/diagnosis/leak_row.h"
#include "core/heap/heap.h"

namespace heapleak {

class CaptureOwn {
 public:
  // The gem's threads as listed by the manifest beside `heap`'s dump (none
  // without one: the gem's classes and files still tell).
  explicit CaptureOwn(const Heap& heap);

  // The row's holder or its path runs through the gem (a thread of its, an
  // object of its classes), or most of its objects are the gem's.
  bool owns(const Heap& heap, const LeakCluster& cluster) const;

 private:
  bool is_gems(const Heap& heap, ObjectIndex i) const;
  std::vector<ObjectIndex> threads_;  // ascending
};

}  // namespace heapleak
