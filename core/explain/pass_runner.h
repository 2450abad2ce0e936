// Runs a pipeline's passes one by one, by name: each pass's time is
// recorded (HEAPLEAK_PROFILE=1 prints them to stderr when the runner ends),
// and a pass named in `skipped` does not run, so a test can switch one off
// and see what it was for. Knows nothing of what the passes do.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace heapleak {

struct PassTime {
  std::string name;
  double seconds = 0;
  bool skipped = false;
};

class PassRunner {
 public:
  // `title` heads the profile ("explain"); the names in `skipped` do not run.
  explicit PassRunner(std::string title, std::vector<std::string> skipped = {});
  ~PassRunner();
  PassRunner(const PassRunner&) = delete;
  PassRunner& operator=(const PassRunner&) = delete;

  // Runs `pass` unless its name is skipped; returns whether it ran.
  bool run(std::string_view name, const std::function<void()>& pass);
  // Records that a pass had nothing to do (no rows to judge): listed, not run.
  void pass_over(std::string_view name);

  const std::vector<PassTime>& times() const { return times_; }

 private:
  std::string title_;
  std::vector<std::string> skipped_;
  std::vector<PassTime> times_;
};

}  // namespace heapleak
