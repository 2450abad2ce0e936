// Where one load's time goes, step by step (read and parse, build the
// columns, sort, permute, classes, edges, roots), with the minor page faults
// of each step: on a VM the first touch of fresh memory is what a load pays
// for most. On when HEAPLEAK_PROFILE is set in the environment; printed to
// stderr when the load ends (bench/run.sh --large prints it per data set).
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace heapleak {

class LoadProfile {
 public:
  // Whether HEAPLEAK_PROFILE is set (read once per process).
  static bool enabled();

  // Ends the running step (if any) and starts `name`.
  void step(const char* name);
  // Ends the running step.
  void stop();
  // Splits the last ended step into shares (e.g. parse, build and wait
  // within the record loop), by the cycles counted for each; its page faults
  // go to the second share (where memory is first written).
  void split_last(std::initializer_list<std::pair<const char*, std::uint64_t>> shares);
  // One line per step: seconds, share of the total, page faults.
  void print(const std::string& path) const;

  // A cheap cycle count for the shares inside a step.
  static std::uint64_t cycles() {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  }

 private:
  struct Step {
    std::string name;
    double seconds = 0;
    long faults = 0;
  };
  std::vector<Step> steps_;
  const char* running_ = nullptr;
  std::chrono::steady_clock::time_point started_;
  long faults_at_start_ = 0;
};

}  // namespace heapleak
