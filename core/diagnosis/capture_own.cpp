#include "core/diagnosis/capture_own.h"

#include <algorithm>
#include <string_view>

#include "core/reading/dump_manifest.h"

namespace heapleak {
namespace {

constexpr std::string_view kGemNamespace = "Heapleak::Capture";

bool gem_name(std::string_view name) {
  return name.starts_with(kGemNamespace) &&
         (name.size() == kGemNamespace.size() || name.substr(kGemNamespace.size(), 2) == "::");
}

// An object the gem allocated, when the dump was traced: its file is in the gem.
bool gem_file(std::string_view file) { return file.find("/heapleak/capture") != file.npos; }

}  // namespace

CaptureOwn::CaptureOwn(const Heap& heap) {
  const auto manifest = read_manifest_for(heap.report().path);
  if (!manifest) return;
  for (Address address : manifest->capture_threads)
    if (const auto i = heap.find(address)) threads_.push_back(*i);
  std::sort(threads_.begin(), threads_.end());
}

bool CaptureOwn::is_gems(const Heap& heap, ObjectIndex i) const {
  if (std::binary_search(threads_.begin(), threads_.end(), i)) return true;
  const ObjectType type = heap.type(i);
  if (type == ObjectType::kClass || type == ObjectType::kModule) return gem_name(heap.own_name(i));
  return gem_name(heap.class_name(i));
}

bool CaptureOwn::owns(const Heap& heap, const LeakCluster& cluster) const {
  if (cluster.holder != kNoObject && is_gems(heap, cluster.holder)) return true;
  for (ObjectIndex y : cluster.path.path)
    if (is_gems(heap, y)) return true;
  if (cluster.objects.empty()) return false;
  std::size_t gems = 0;
  for (ObjectIndex i : cluster.objects) gems += is_gems(heap, i) || gem_file(heap.file(i));
  return 2 * gems > cluster.objects.size();
}

}  // namespace heapleak
