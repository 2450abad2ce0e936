// heapleak-analysis-bench B [A C]: times the ownership analyses on a loaded
// heap. Prints load time and resident bytes per object, then the dominator
// tree + retained sizes (time, and peak extra memory per object measured by
// resetting the kernel's peak-RSS mark), then, with A and C, `explain` on the
// three loaded heaps (the dominator tree already cached, as in the daemon).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#include "core/diagnosis/ownership.h"
#include "core/explain/explain_pipeline.h"
#include "core/graph/dominators.h"
#include "core/loading/loader.h"

namespace {

long status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
  }
  return -1;
}

void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::shared_ptr<const heapleak::Heap> load(const char* path, bool full) {
  heapleak::LoadOptions options;
  options.mode = full ? heapleak::LoadMode::kFull : heapleak::LoadMode::kIdentityOnly;
  auto started = std::chrono::steady_clock::now();
  auto heap = heapleak::load_heap(path, options);
  if (!heap) {
    std::fprintf(stderr, "%s\n", heap.error().message.c_str());
    std::exit(3);
  }
  const auto& h = **heap;
  std::printf("load %-40s %9zu objects %7.2f s %7.0f MB/s %6.1f bytes/object resident\n", path,
              h.size(), seconds_since(started),
              h.report().file_bytes / 1e6 / seconds_since(started),
              static_cast<double>(h.bytes_used()) / h.size());
  return *heap;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr, "usage: heapleak-analysis-bench B.json [A.json C.json]\n");
    return 2;
  }
  auto target = load(argv[1], true);
  reset_peak_rss();
  const long before_kb = status_kb("VmRSS:");
  auto started = std::chrono::steady_clock::now();
  const auto& tree = target->dominators();
  const double dominator_seconds = seconds_since(started);
  const long peak_kb = status_kb("VmHWM:");
  std::printf(
      "dominators + retained sizes: %.2f s for %zu objects (%zu reachable); peak extra memory %.1f "
      "bytes/object, kept %.1f bytes/object\n",
      dominator_seconds, target->size(), tree.reachable_count(),
      (peak_kb - before_kb) * 1024.0 / target->size(),
      static_cast<double>(tree.bytes_used()) / target->size());
  started = std::chrono::steady_clock::now();
  auto top = heapleak::top_retainers(*target, 20);
  std::printf("top 20 retainers: %.3f s\n", seconds_since(started));
  if (argc == 4) {
    auto baseline = load(argv[2], true);
    auto later = load(argv[3], true);
    started = std::chrono::steady_clock::now();
    // explain's own passes (core/explain/explain_pipeline.h), each timed.
    heapleak::ExplainInput input;
    input.dumps = {baseline.get(), target.get(), later.get()};
    const heapleak::ExplainOutcome explained = heapleak::explain_leaks(std::move(input));
    std::printf(
        "explain on 3 loaded heaps: %.3f s (%zu leaked objects, %zu leak rows, %zu noise)\n",
        seconds_since(started), explained.diff.leaked.size(), explained.rows.leaks.size(),
        explained.rows.noise.size());
    for (const auto& pass : explained.times)
      if (!pass.skipped) std::printf("  %-20s %.3f s\n", pass.name.c_str(), pass.seconds);
  }
  return 0;
}
