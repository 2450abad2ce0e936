#include "core/loading/load_memory_guard.h"

#include <cstdio>

#include "core/base/memory_headroom.h"
#include "core/loading/memory_fit.h"

namespace heapleak {
namespace {

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

LoadMemoryGuard::LoadMemoryGuard(std::string path, std::function<std::uint64_t()> low_need,
                                 Headroom headroom)
    : path_(std::move(path)),
      low_need_(std::move(low_need)),
      headroom_(headroom ? std::move(headroom) : Headroom([] { return memory_headroom_bytes(); })),
      at_start_(headroom_()) {}

LoadMemoryGuard::LoadMemoryGuard(const std::string& path, LoadMode mode)
    : LoadMemoryGuard(path, [path, mode] {
        const auto objects = estimate_dump_objects(path);
        return objects ? low_load_bytes(*objects, mode) : 0;
      }) {}

void LoadMemoryGuard::watch(LoadControl& control) {
  // The loading thread calls progress, then charge, after each block.
  control.progress = [this, outer = std::move(control.progress)](std::uint64_t done,
                                                                 std::uint64_t total) {
    done_ = done;
    total_ = total;
    if (outer) outer(done, total);
  };
  control.charge = [this, outer = std::move(control.charge)](std::uint64_t bytes) {
    return (!outer || outer(bytes)) && still_fits(done_, total_);
  };
}

bool LoadMemoryGuard::first_look() {
  looked_ = true;
  const std::uint64_t need = low_need_ ? low_need_() : 0;
  if (at_start_ == UINT64_MAX || need <= at_start_) return true;
  reason_ = path_ + ": loading needs at least " + mib(need) + " but only " + mib(at_start_) +
            " of memory was left";
  return false;
}

bool LoadMemoryGuard::still_fits(std::uint64_t done, std::uint64_t total) {
  if (!looked_) {
    checked_at_ = done;
    if (!first_look()) return false;
  }
  if (done < checked_at_ + kCheckEveryBytes) return true;
  const std::uint64_t now = headroom_();
  checked_at_ = done;
  if (now == UINT64_MAX || at_start_ == UINT64_MAX) return true;
  const std::string where = " after " + mib(done) + " of " + mib(total) + " of the file";
  if (now < kFloorBytes) {
    reason_ = path_ + ": load stopped: only " + mib(now) + " of memory was left" + where;
    return false;
  }
  const double share = total == 0 ? 0.0 : static_cast<double>(done) / static_cast<double>(total);
  // Memory taken since the start, by this load and by any beside it: loads
  // started together share what was left, and together are on course.
  const std::uint64_t taken = at_start_ > now ? at_start_ - now : 0;
  if (rate_share_ < 0) {
    if (share >= kRateFrom) {
      rate_share_ = share;
      rate_taken_ = taken;
    }
    return true;
  }
  if (share < rate_share_ + kRateOver) return true;
  const double rate =
      taken > rate_taken_ ? static_cast<double>(taken - rate_taken_) / (share - rate_share_) : 0.0;
  const double course = (static_cast<double>(taken) + rate * (1 - share)) * kFinishFactor;
  if (course <= static_cast<double>(at_start_)) return true;
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f%%", share * 100);
  reason_ = path_ + ": load stopped: on course to need about " +
            mib(static_cast<std::uint64_t>(course)) + " but only " + mib(at_start_) +
            " of memory was left when it began (" + mib(taken) + " taken by " + percent +
            " of the file)";
  return false;
}

}  // namespace heapleak
