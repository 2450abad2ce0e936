#include "core/reports/retainer_report.h"

#include <algorithm>

#include "core/heap/naming.h"

namespace heapleak {

Result<RetainerReport> explain_retention(const Heap& heap, const RetainerRequest& request) {
  if (!heap.has_edges()) {
    return make_error(ErrorReason::kInvalidArgument, "the heap was loaded without references");
  }
  RetainerReport report;
  for (Address address : request.addresses) {
    if (auto index = heap.find(address)) {
      if (std::find(report.samples.begin(), report.samples.end(), *index) == report.samples.end()) {
        report.samples.push_back(*index);
      }
    } else {
      report.unknown.push_back(address);
    }
  }
  if (report.samples.empty()) {
    std::string message = "none of the addresses is in this heap:";
    for (std::size_t k = 0; k < report.unknown.size() && k < 10; ++k) {
      message += " " + format_address(report.unknown[k]);
    }
    if (report.unknown.size() > 10) message += " ...";
    return make_error(ErrorReason::kUnknownAddress, message);
  }
  report.result = find_common_retainer(
      heap, RetainerQuery{report.samples, request.min_samples, request.max_visits, request.cancel});
  if (report.result.cancelled) return make_error(ErrorReason::kCancelled, "root search cancelled");
  // A 4.0 IMEMO:fields object is part of its owner: the owner is the answer.
  if (report.result.retainer != kNoObject)
    report.result.retainer = fold_fields(heap, report.result.retainer);
  if (report.result.retainer != kNoObject && !heap.roots().empty()) {
    report.retainer_root_path = heap.root_paths().path_to(heap, report.result.retainer);
  }
  if (!heap.roots().empty()) report.split = split_samples(heap, report.samples);
  report.graph =
      build_retainer_graph(heap, report.samples, report.result, &report.retainer_root_path);

  std::vector<std::string> comments{
      "heapleak root: " + std::to_string(heap.size()) + " objects in " + heap.report().path,
      std::to_string(report.samples.size()) + " sample objects, " +
          std::to_string(report.graph.nodes.size()) + " objects drawn"};
  if (report.result.retainer != kNoObject) {
    comments.push_back("nearest common retainer " +
                       format_address(heap.address(report.result.retainer)) + " at distance " +
                       std::to_string(report.result.distance));
  } else {
    comments.push_back("no common retainer found");
  }
  report.dot = to_dot(heap, report.graph, comments);
  return report;
}

}  // namespace heapleak
