#include "core/reading/load_profile.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace heapleak {

LoadProfile::Usage LoadProfile::thread_usage() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return Usage{usage.ru_minflt,
               static_cast<double>(usage.ru_stime.tv_sec) + usage.ru_stime.tv_usec / 1e6};
}

bool LoadProfile::enabled() {
  static const bool on = std::getenv("HEAPLEAK_PROFILE") != nullptr;
  return on;
}

void LoadProfile::step(const char* name) {
  stop();
  running_ = name;
  at_start_ = thread_usage();
  started_ = std::chrono::steady_clock::now();
}

void LoadProfile::stop() {
  if (!running_) return;
  const auto now = std::chrono::steady_clock::now();
  const Usage usage = thread_usage();
  steps_.push_back(Step{running_, std::chrono::duration<double>(now - started_).count(),
                        usage.faults - at_start_.faults,
                        usage.kernel_seconds - at_start_.kernel_seconds});
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
    const bool second = k++ == 1;
    steps_.push_back(Step{name, whole.seconds * part, second ? whole.faults : 0,
                          second ? whole.kernel_seconds : 0});
  }
}

void LoadProfile::beside(const char* name, double seconds, long faults, double kernel_seconds) {
  beside_.push_back(Step{name, seconds, faults, kernel_seconds});
}

void LoadProfile::print(const std::string& path) const {
  double total = 0;
  long faults = 0;
  double kernel = 0;
  for (const auto& s : steps_) {
    total += s.seconds;
    faults += s.faults;
    kernel += s.kernel_seconds;
  }
  // Faults, not bytes: a fault on a huge page (HEAPLEAK_HUGEPAGES=1) maps
  // 2 MiB at once. Kernel seconds are mostly those faults (zeroing fresh
  // pages). One write: loads that run at once print whole profiles.
  char line[256];
  std::snprintf(line, sizeof line, ": %.3f s, %ld minor page faults, %.3f s in the kernel\n", total,
                faults, kernel);
  std::string text = "profile " + path + line;
  for (const auto& s : steps_) {
    std::snprintf(line, sizeof line, "  %-22s %8.3f s %5.1f%% %10ld faults %8.3f s kernel\n",
                  s.name.c_str(), s.seconds, total > 0 ? 100 * s.seconds / total : 0.0, s.faults,
                  s.kernel_seconds);
    text += line;
  }
  for (const auto& s : beside_) {
    std::snprintf(line, sizeof line, "  beside: %-14s %8.3f s %6s %10ld faults %8.3f s kernel\n",
                  s.name.c_str(), s.seconds, "", s.faults, s.kernel_seconds);
    text += line;
  }
  std::fputs(text.c_str(), stderr);
}

}  // namespace heapleak
