#include "engine/later_references.h"

#include <chrono>
#include <cstdio>
#include <exception>

namespace heapleak::engine {

LaterReread reread_for_moved_objects(const LeakDiff& diff, const OtherDump& later, std::size_t k,
                                     const ReadWithReferences& reread) {
  LaterReread out;
  if (!reread || !diff.moved_later || diff.moved_unmatched == 0 || diff.moved_with_references)
    return out;
  const auto start = std::chrono::steady_clock::now();
  std::string failed;
  try {
    out.heap = reread(k);
  } catch (const std::exception& error) {
    failed = error.what();
  }
  if (out.heap && !(out.heap->report().identity == later.report().identity)) {
    failed = "the file changed since it was read";
    out.heap.reset();
  }
  if (!out.heap || !out.heap->has_edges()) {
    out.heap.reset();
    out.warning = "could not read C again with its references to match the moved objects" +
                  (failed.empty() ? std::string() : ": " + failed);
    return out;
  }
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f s", took);
  out.warning = std::string("C was read again with its references to match the moved objects ") +
                "by their holders (" + seconds + ")";
  return out;
}

}  // namespace heapleak::engine
