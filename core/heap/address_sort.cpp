#include "core/heap/address_sort.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/base/in_halves.h"

namespace heapleak {
namespace {

// An ascending run of the file: its next position, its end, and the
// address at `next` (what the merge compares).
struct Run {
  Address head;
  ObjectIndex next;
  ObjectIndex end;
};

// The order is by (address, file position), so equal addresses keep file order.
bool before(const Run& a, const Run& b) {
  return a.head != b.head ? a.head < b.head : a.next < b.next;
}

std::vector<Run> find_runs(const Column<Address>& addresses, ObjectIndex hole_begin,
                           ObjectIndex hole_end) {
  const std::size_t n = addresses.size();
  std::vector<Run> runs;
  for (ObjectIndex i = 0; i < n;) {
    if (i == hole_begin && hole_end > hole_begin) {
      i = hole_end;
      continue;
    }
    ObjectIndex end = i + 1;
    while (end < n && end != hole_begin && addresses[end - 1] <= addresses[end]) ++end;
    runs.push_back(Run{addresses[i], i, end});
    i = end;
  }
  return runs;
}

// Merges `runs` into `out`, leaving out every record whose address the
// one before it had; returns how many it wrote, and counts the others.
// Runs enter the min-heap when the merge reaches their head, and the
// smallest run hands out everything below the next run's head in one go:
// pages rarely overlap, so most runs are copied whole with no heap work per
// object (a plain heap merge costs ~log2(runs) mispredicted comparisons per
// object).
std::size_t merge_runs(const Column<Address>& addresses, std::vector<Run> pending, ObjectIndex* out,
                       std::uint64_t& duplicates) {
  auto later = [](const Run& a, const Run& b) { return before(b, a); };
  std::sort(pending.begin(), pending.end(), before);
  std::vector<Run> active;
  std::size_t p = 0;
  std::size_t k = 0;
  Address last = 0;
  for (;;) {
    while (p < pending.size() && (active.empty() || before(pending[p], active.front()))) {
      active.push_back(pending[p++]);
      std::push_heap(active.begin(), active.end(), later);
    }
    if (active.empty()) break;
    std::pop_heap(active.begin(), active.end(), later);
    Run run = active.back();
    active.pop_back();
    const Run* limit = nullptr;  // the smallest head of the other runs
    if (!active.empty()) limit = &active.front();
    if (p < pending.size() && (limit == nullptr || before(pending[p], *limit))) limit = &pending[p];
    for (;;) {
      // Equal addresses come out in file order: the first is kept.
      if (k > 0 && run.head == last) {
        ++duplicates;
      } else {
        out[k++] = run.next;
        last = run.head;
      }
      if (++run.next == run.end) break;
      run.head = addresses[run.next];
      if (limit != nullptr && !before(run, *limit)) break;
    }
    if (run.next < run.end) {
      active.push_back(run);
      std::push_heap(active.begin(), active.end(), later);
    }
  }
  return k;
}

// An address near the median of the records, from a sample of them.
Address pivot(const Column<Address>& addresses, const std::vector<Run>& runs) {
  std::vector<Address> sample;
  const std::size_t step = std::max<std::size_t>(1, addresses.size() / 4096);
  for (const Run& run : runs)
    for (std::size_t i = run.next; i < run.end; i += step) sample.push_back(addresses[i]);
  auto middle = sample.begin() + static_cast<std::ptrdiff_t>(sample.size() / 2);
  std::nth_element(sample.begin(), middle, sample.end());
  return *middle;
}

}  // namespace

std::uint64_t sort_by_address(const Column<Address>& addresses, ObjectIndex hole_begin,
                              ObjectIndex hole_end, bool two, Column<ObjectIndex>& order) {
  std::vector<Run> runs = find_runs(addresses, hole_begin, hole_end);
  std::size_t objects = 0;
  for (const Run& run : runs) objects += run.end - run.next;
  // Every position the merges keep is written before it is read.
  order.resize_for_overwrite(objects);
  std::uint64_t duplicates = 0;
  if (!two || objects < kWorthAThread) {
    order.resize(merge_runs(addresses, std::move(runs), order.data(), duplicates));
    return duplicates;
  }
  // Each run splits where its addresses reach the pivot: the parts below it
  // merge into the front of the order, the rest after them, at once. Equal
  // addresses all fall on one side, so each side leaves out its own duplicates.
  const Address middle = pivot(addresses, runs);
  std::vector<Run> low, high;
  std::size_t low_objects = 0;
  for (const Run& run : runs) {
    const Address* first = addresses.data() + run.next;
    const auto split = static_cast<ObjectIndex>(
        std::lower_bound(first, addresses.data() + run.end, middle) - addresses.data());
    if (split > run.next) low.push_back(Run{run.head, run.next, split});
    if (split < run.end) high.push_back(Run{addresses[split], split, run.end});
    low_objects += split - run.next;
  }
  std::size_t low_kept = 0, high_kept = 0;
  std::uint64_t high_duplicates = 0;
  run_both([&] { low_kept = merge_runs(addresses, std::move(low), order.data(), duplicates); },
           [&] {
             high_kept = merge_runs(addresses, std::move(high), order.data() + low_objects,
                                    high_duplicates);
           });
  if (low_kept < low_objects)
    std::memmove(order.data() + low_kept, order.data() + low_objects,
                 high_kept * sizeof(ObjectIndex));
  order.resize(low_kept + high_kept);
  return duplicates + high_duplicates;
}

}  // namespace heapleak
