// One `$/progress` for the files a request reads at once (loads, or dumps
// streamed against B): its percentage is the bytes read of all of them,
// whichever thread reads each. Begins when made, ends when destroyed.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/progress.h"

namespace heapleak::daemon {

// "A.json, C.json": the file names of the non-empty `paths`, for a title.
std::string file_names(const std::vector<std::string>& paths);

class FilesProgress {
 public:
  FilesProgress(const protocol::Progress& progress, const std::string& title, std::size_t files);
  ~FilesProgress() { progress_.end(); }
  FilesProgress(const FilesProgress&) = delete;
  FilesProgress& operator=(const FilesProgress&) = delete;

  // File k's reports (bytes done of total); safe from any thread.
  void report(std::size_t k, std::uint64_t done, std::uint64_t total);
  std::function<void(std::uint64_t, std::uint64_t)> slot(std::size_t k) {
    return [this, k](std::uint64_t done, std::uint64_t total) { report(k, done, total); };
  }

 private:
  const protocol::Progress& progress_;
  std::mutex mutex_;
  std::vector<std::uint64_t> done_, total_;
};

}  // namespace heapleak::daemon
