#include "engine/diff_streams.h"

#include <algorithm>

#include "core/diagnosis/streamed_counterparts.h"
#include "core/loading/site_trust.h"
#include "engine/load_plan.h"

namespace heapleak::engine {

DiffStreams::DiffStreams(const Heap& target, std::vector<std::string> paths, Progress progress)
    : target_(target),
      paths_(std::move(paths)),
      progress_(std::move(progress)),
      results_(paths_.size(), make_error(ErrorReason::kCancelled, "not read")),
      failures_(paths_.size()) {
  for (std::size_t k = 0; k < paths_.size(); ++k)
    if (!paths_[k].empty()) reads_.push_back(k);
  for (std::size_t t = 0; t < std::min(kAtOnce, reads_.size()); ++t)
    threads_.emplace_back([this] { work(); });
}

DiffStreams::~DiffStreams() {
  stop();
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
}

void DiffStreams::work() {
  lower_this_threads_priority();
  for (std::size_t n; (n = next_++) < reads_.size();) {
    const std::size_t k = reads_[n];
    try {
      StreamOptions options;
      options.sites_from = sites_trusted_from(paths_[k]);
      options.cancel = &stop_;
      if (progress_)
        options.progress = [this, k](std::uint64_t done, std::uint64_t total) {
          progress_(k, done, total);
        };
      results_[k] = stream_counterparts(target_, paths_[k], options);
    } catch (...) {
      failures_[k] = std::current_exception();
    }
  }
}

std::vector<Result<Counterparts>> DiffStreams::join() {
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  for (const auto& failure : failures_)
    if (failure) std::rethrow_exception(failure);
  return std::move(results_);
}

}  // namespace heapleak::engine
