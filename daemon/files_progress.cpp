#include "daemon/files_progress.h"

#include <filesystem>

namespace heapleak::daemon {

std::string file_names(const std::vector<std::string>& paths) {
  std::string names;
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    if (!names.empty()) names += ", ";
    names += std::filesystem::path(path).filename().string();
  }
  return names;
}

FilesProgress::FilesProgress(const protocol::Progress& progress, const std::string& title,
                             std::size_t files)
    : progress_(progress), done_(files), total_(files) {
  progress_.begin(title);
}

void FilesProgress::report(std::size_t k, std::uint64_t done, std::uint64_t total) {
  std::lock_guard lock(mutex_);
  done_[k] = done;
  total_[k] = total;
  std::uint64_t all_done = 0, all_total = 0;
  for (std::size_t j = 0; j < done_.size(); ++j) {
    all_done += done_[j];
    all_total += total_[j];
  }
  progress_.report(all_total == 0 ? 100 : static_cast<unsigned>(all_done * 100 / all_total), "");
}

}  // namespace heapleak::daemon
