// OrderRuns: a sort order (position k of the result takes source position
// order[k]) seen as its stretches of consecutive sources. A dump is written
// page by page, each page's objects in ascending address order, so its order
// by address is a few thousand such stretches (Ruby 3.1 writes its pages in
// descending order: 13,646 of ~400 objects in a 5.5 M-object dump); moving
// a column by stretch is a memcpy each, not one indexed load per object.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "core/base/column.h"
#include "core/heap/heap.h"

namespace heapleak {

class OrderRuns {
 public:
  // Below this many objects per stretch on average, a memcpy each costs
  // more than the indexed loads it replaces: the runs are not kept.
  static constexpr std::size_t kWorthwhileLength = 32;

  explicit OrderRuns(const Column<ObjectIndex>& order);

  // Whether gather() copies by stretch; else it reads order[k] per object.
  bool by_stretch() const { return !runs_.empty(); }
  std::size_t stretches() const { return runs_.size(); }

  // out[k] = in[order[k]] for k in [begin, end).
  template <class T>
  void gather(T* out, const T* in, const ObjectIndex* order, std::size_t begin,
              std::size_t end) const {
    if (!by_stretch()) {
      for (std::size_t k = begin; k < end; ++k) out[k] = in[order[k]];
      return;
    }
    // The stretch holding `begin`: the last whose first position is <= begin.
    auto run = std::upper_bound(runs_.begin(), runs_.end(), begin,
                                [](std::size_t k, const Run& r) { return k < r.to; }) -
               1;
    for (std::size_t k = begin; k < end; ++run) {
      const std::size_t stop = std::min(end, run->to + run->count);
      std::memcpy(out + k, in + run->from + (k - run->to), (stop - k) * sizeof(T));
      k = stop;
    }
  }

 private:
  struct Run {
    std::size_t to;    // first position in the result
    std::size_t from;  // its source position
    std::size_t count;
  };
  std::vector<Run> runs_;  // by `to`, covering [0, order.size()); empty if not worthwhile
};

}  // namespace heapleak
