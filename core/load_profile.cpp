#include "core/load_profile.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>

namespace heapleak {
namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

}  // namespace

bool LoadProfile::enabled() {
  static const bool on = std::getenv("HEAPLEAK_PROFILE") != nullptr;
  return on;
}

void LoadProfile::step(const char* name) {
  stop();
  running_ = name;
  faults_at_start_ = minor_faults();
  started_ = std::chrono::steady_clock::now();
}

void LoadProfile::stop() {
  if (!running_) return;
  const auto now = std::chrono::steady_clock::now();
  steps_.push_back(Step{running_, std::chrono::duration<double>(now - started_).count(),
                        minor_faults() - faults_at_start_});
  running_ = nullptr;
}

void LoadProfile::split_last(std::initializer_list<std::pair<const char*, std::uint64_t>> shares) {
  std::uint64_t total = 0;
  for (const auto& share : shares) total += share.second;
  if (steps_.empty() || total == 0) return;
  const Step whole = steps_.back();
  steps_.pop_back();
  int k = 0;
  for (const auto& [name, cycles] : shares) {
    const double part = static_cast<double>(cycles) / static_cast<double>(total);
    steps_.push_back(Step{name, whole.seconds * part, k++ == 1 ? whole.faults : 0});
  }
}

void LoadProfile::print(const std::string& path) const {
  double total = 0;
  long faults = 0;
  for (const auto& s : steps_) {
    total += s.seconds;
    faults += s.faults;
  }
  // Faults, not bytes: a fault on a MADV_HUGEPAGE column maps 2 MiB at once.
  std::fprintf(stderr, "profile %s: %.3f s, %ld minor page faults\n", path.c_str(), total, faults);
  for (const auto& s : steps_) {
    std::fprintf(stderr, "  %-22s %8.3f s %5.1f%% %10ld faults\n", s.name.c_str(), s.seconds,
                 total > 0 ? 100 * s.seconds / total : 0.0, s.faults);
  }
}

}  // namespace heapleak
