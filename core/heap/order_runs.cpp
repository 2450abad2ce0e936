#include "core/heap/order_runs.h"

namespace heapleak {

OrderRuns::OrderRuns(const Column<ObjectIndex>& order) {
  const std::size_t n = order.size();
  for (std::size_t k = 0; k < n;) {
    std::size_t end = k + 1;
    while (end < n && order[end] == order[end - 1] + 1) ++end;
    runs_.push_back(Run{k, order[k], end - k});
    // Too fragmented to be worth it: known as soon as the runs so far are short.
    if (runs_.size() * kWorthwhileLength > std::max<std::size_t>(end, 1024 * kWorthwhileLength)) {
      runs_.clear();
      runs_.shrink_to_fit();
      return;
    }
    k = end;
  }
}

}  // namespace heapleak
