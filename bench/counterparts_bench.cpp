// heapleak-counterparts-bench B OTHER: what holding OTHER (A or C of a diff)
// costs against streaming it past B (core/diagnosis/streamed_counterparts.h):
// the identity-only load's time and bytes, then the stream's time and the
// bytes its Counterparts keep, and that both say the same of every object.
#include <chrono>
#include <cstdio>
#include <string>

#include "core/diagnosis/counterparts.h"
#include "core/diagnosis/streamed_counterparts.h"
#include "core/loading/loader.h"

using namespace heapleak;

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
std::size_t kept_bytes(const Counterparts& c) {
  // The flags, and the changed sizes' hash nodes (key, value, next, hash).
  return c.flags.size() + c.changed.size() * 40 + c.changed.bucket_count() * sizeof(void*);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: heapleak-counterparts-bench B.json OTHER.json\n");
    return 2;
  }
  const auto b = load_heap(argv[1]);
  if (!b) {
    std::fprintf(stderr, "%s\n", b.error().message.c_str());
    return 1;
  }
  const Heap& target = **b;
  std::printf("B: %zu objects, %.1f MiB\n", target.size(), target.bytes_used() / 1048576.0);

  auto start = std::chrono::steady_clock::now();
  LoadOptions identity;
  identity.mode = LoadMode::kIdentityOnly;
  const auto other = load_heap(argv[2], identity);
  if (!other) {
    std::fprintf(stderr, "%s\n", other.error().message.c_str());
    return 1;
  }
  const double load_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  const Counterparts loaded = counterparts_of(target, **other);
  const double compare_s = seconds_since(start);
  std::printf("held:     load %.2f s + compare %.2f s, %.1f MiB (%.1f B per object of B)\n", load_s,
              compare_s, (*other)->bytes_used() / 1048576.0,
              static_cast<double>((*other)->bytes_used()) / target.size());

  start = std::chrono::steady_clock::now();
  const auto streamed = stream_counterparts(target, argv[2]);
  const double stream_s = seconds_since(start);
  if (!streamed) {
    std::fprintf(stderr, "%s\n", streamed.error().message.c_str());
    return 1;
  }
  std::printf("streamed: %.2f s, %.1f MiB kept (%.2f B per object of B; %zu sizes changed)\n",
              stream_s, kept_bytes(*streamed) / 1048576.0,
              static_cast<double>(kept_bytes(*streamed)) / target.size(), streamed->changed.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < loaded.flags.size(); ++i)
    differ += loaded.flags[i] != streamed->flags[i];
  std::printf("objects of B whose flags differ: %zu; sizes changed %zu / %zu\n", differ,
              streamed->changed.size(), loaded.changed.size());
  return differ == 0 && streamed->changed.size() == loaded.changed.size() ? 0 : 1;
}
