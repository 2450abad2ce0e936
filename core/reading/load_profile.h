// Where one load's time goes, step by step (read and parse, build the
// columns, sort, permute, classes, edges, roots), with the loading thread's
// minor page faults and kernel seconds in each: on a VM the first touch of
// fresh memory is what a load pays for most (core/reading/prefaulter.h moves it off
// this thread). On when HEAPLEAK_PROFILE is set; printed to stderr at the end.
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
  // and kernel time go to the second share (where memory is first written).
  void split_last(std::initializer_list<std::pair<const char*, std::uint64_t>> shares);
  // What another thread did meanwhile (a split load's second half, from
  // its start to its end): printed after the steps, not in their total.
  void beside(const char* name, double seconds, long faults, double kernel_seconds);
  // One line per step: seconds, share of the total, page faults, kernel seconds.
  void print(const std::string& path) const;

  // The calling thread's minor page faults and kernel seconds so far.
  struct Usage {
    long faults = 0;
    double kernel_seconds = 0;
  };
  static Usage thread_usage();

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
    double kernel_seconds = 0;  // the loading thread's time in the kernel
  };
  std::vector<Step> steps_;
  std::vector<Step> beside_;
  const char* running_ = nullptr;
  std::chrono::steady_clock::time_point started_;
  Usage at_start_;
};

}  // namespace heapleak
