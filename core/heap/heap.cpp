#include "core/heap/heap.h"

#include <algorithm>

namespace heapleak {

const char* cache_use_name(CacheUse use) {
  switch (use) {
    case CacheUse::kMiss:
      return "miss";
    case CacheUse::kHit:
      return "hit";
    case CacheUse::kRebuilt:
      return "rebuilt";
    case CacheUse::kOff:
      break;
  }
  return "off";
}

Heap::Heap(HeapColumns columns, LoadReport report)
    : c_(std::move(columns)), report_(std::move(report)) {}

Heap::~Heap() = default;

std::optional<ImageBinding> Heap::image_binding() const {
  std::lock_guard lock(binding_mutex_);
  return binding_;
}

void Heap::bind_image(ImageBinding binding) const {
  std::lock_guard lock(binding_mutex_);
  binding_ = std::move(binding);
}

void Heap::set_analyses_kept(unsigned kept) const {
  std::lock_guard lock(binding_mutex_);
  if (binding_) binding_->kept = kept;
}

// Mapped analyses count at their full size, like a mapped image's columns in
// bytes_used(): their pages are file-backed and reclaimable, not anonymous,
// but a query reads most of them, so they are resident while it runs, and a
// budget that left them out would admit more than the machine holds.
std::size_t Heap::analyses_bytes_used() const {
  return root_paths_.bytes_used() + dominators_.bytes_used();
}

std::optional<ObjectIndex> Heap::find(Address address) const {
  auto it = std::lower_bound(c_.address.begin(), c_.address.end(), address);
  if (it == c_.address.end() || *it != address) return std::nullopt;
  return static_cast<ObjectIndex>(it - c_.address.begin());
}

std::string_view Heap::class_name(ObjectIndex i) const {
  const ObjectIndex klass = c_.class_index[i];
  return klass == kNoObject ? std::string_view() : own_name(klass);
}

std::optional<std::uint32_t> Heap::generation(ObjectIndex i) const {
  if (c_.generation.empty() || c_.generation[i] == 0 || !site_trusted(i)) return std::nullopt;
  return c_.generation[i] - 1;
}

std::optional<std::uint32_t> Heap::length(ObjectIndex i) const {
  if (c_.length.empty() || c_.length[i] == 0 || (c_.length[i] & kReferenceCountFlag))
    return std::nullopt;
  return c_.length[i] - 1;
}

std::optional<std::uint32_t> Heap::record_reference_count(ObjectIndex i) const {
  if (c_.length.empty() || !(c_.length[i] & kReferenceCountFlag)) return std::nullopt;
  return (c_.length[i] & ~kReferenceCountFlag) - 1;
}

std::span<const ObjectIndex> Heap::references(ObjectIndex i) const {
  if (c_.out_offsets.empty()) return {};
  return std::span(c_.out_edges)
      .subspan(c_.out_offsets[i], c_.out_offsets[i + 1] - c_.out_offsets[i]);
}

std::span<const ObjectIndex> Heap::referrers(ObjectIndex i) const {
  if (c_.in_offsets.empty()) return {};
  return std::span(c_.in_edges).subspan(c_.in_offsets[i], c_.in_offsets[i + 1] - c_.in_offsets[i]);
}

std::size_t Heap::bytes_used() const {
  auto bytes = [](const auto& v) { return v.size() * sizeof(v[0]); };
  std::size_t total = bytes(c_.address) + bytes(c_.type) + bytes(c_.class_index) +
                      bytes(c_.own_name) + bytes(c_.memsize) + bytes(c_.value_hash) +
                      bytes(c_.first_ref) + bytes(c_.line_offset) + bytes(c_.length) +
                      bytes(c_.file) + bytes(c_.line) + bytes(c_.method) + bytes(c_.generation) +
                      bytes(c_.out_offsets) + bytes(c_.out_edges) + bytes(c_.in_offsets) +
                      bytes(c_.in_edges) + c_.names.bytes_used() + c_.shapes.bytes_used();
  for (const auto& root : c_.roots) total += bytes(root.targets) + root.name.capacity();
  if (c_.gzip_index) total += c_.gzip_index->bytes_used();
  return total;
}

}  // namespace heapleak
