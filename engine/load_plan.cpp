#include "engine/load_plan.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diagnosis/leak_diff.h"
#include "core/loading/loader.h"
#include "core/reading/byte_source.h"

namespace heapleak::engine {

LoadPlan plan_leak_loads(const std::vector<std::string>& paths) {
  // Only B needs references; A and C answer identity and growth questions.
  // B is the second dump of A B [C], and D(N-1) of a series D1..DN (N >= 4:
  // explain's series, core/series/series_growth.h): the second-to-last.
  LoadPlan plan;
  const std::size_t target = diff_roles(paths.size()).target;
  for (std::size_t k = 0; k < paths.size(); ++k)
    plan.loads.push_back({paths[k], k == target ? LoadMode::kFull : LoadMode::kIdentityOnly});
  // B is the longest load, and the analyses on it (dominators, root paths:
  // ~0.3 s on syn1700's 6 M objects) need nothing else. So B goes first,
  // its thread goes on to them, and A and C load beside it at a lower
  // priority, on the core it leaves. On syn1700, cold: 3.05-3.10 s against
  // 3.30-3.46 s with three equal loads (B, the longest, then ended last and
  // the analyses ran on one core), and 3.4-3.5 s with B and its analyses on
  // one thread and A then C on the other. A longer series keeps three loads
  // at a time: two identity-only loads beside B already fill the cores.
  plan.at_once = 3;
  if (paths.size() >= 2) {
    plan.target = target;
    plan.order = {target, 0};
  }
  for (std::size_t k = 1; k < paths.size(); ++k)
    if (k != target) plan.order.push_back(k);
  return plan;
}

void analyse_target(const Heap& heap) {
  // (A and C may come from full images, with edges: only B's are computed.)
  if (!heap.report().edges_built) return;
  heap.dominators();
  heap.root_paths();
}

void lower_this_threads_priority() {
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10);
}

std::uint64_t load_peak_estimate(const std::string& path) {
  // Non-blocking, and only a regular file is read: opening a FIFO blocks,
  // and reading one steals its bytes.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  struct stat info {};
  unsigned char magic[2] = {0, 0};
  const bool regular = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  const bool gzipped = regular && ::pread(fd, magic, 2, 0) == 2 && has_gzip_magic(magic, 2);
  ::close(fd);
  if (!regular) return 0;
  // Measured: a loaded heap holds ~0.2 bytes per byte of JSON, and a load
  // peaks near twice that while it sorts and builds edges; gzip inflates ~8x.
  return estimate_peak_bytes(static_cast<std::uint64_t>(info.st_size) * (gzipped ? 8 : 1));
}

}  // namespace heapleak::engine
