#include "core/explain/pass_runner.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "core/reading/load_profile.h"

namespace heapleak {

PassRunner::PassRunner(std::string title, std::vector<std::string> skipped)
    : title_(std::move(title)), skipped_(std::move(skipped)) {}

PassRunner::~PassRunner() {
  if (!LoadProfile::enabled() || times_.empty()) return;
  double total = 0;
  for (const PassTime& pass : times_) total += pass.seconds;
  std::fprintf(stderr, "heapleak: %s: %.3f s in %zu passes\n", title_.c_str(), total,
               times_.size());
  for (const PassTime& pass : times_) {
    if (pass.skipped)
      std::fprintf(stderr, "  %-28s skipped\n", pass.name.c_str());
    else
      std::fprintf(stderr, "  %-28s %8.3f s\n", pass.name.c_str(), pass.seconds);
  }
}

bool PassRunner::run(std::string_view name, const std::function<void()>& pass) {
  if (std::find(skipped_.begin(), skipped_.end(), name) != skipped_.end()) {
    times_.push_back({std::string(name), 0, true});
    return false;
  }
  const auto started = std::chrono::steady_clock::now();
  pass();
  times_.push_back(
      {std::string(name),
       std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), false});
  return true;
}

void PassRunner::pass_over(std::string_view name) {
  times_.push_back({std::string(name), 0, true});
}

}  // namespace heapleak
