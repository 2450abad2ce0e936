#include "core/series/row_native.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string_view>
#include <tuple>

namespace heapleak {

namespace {

struct ClassNative {
  std::uint64_t count = 0, bytes = 0, undercounted = 0;
};

bool undercounts(std::string_view name, std::uint32_t memsize) {
  return memsize <= kDataSlotBytes ||
         std::ranges::find(kUndercountingClasses, name) != std::end(kUndercountingClasses);
}

}  // namespace

RowNative row_native(const Heap& heap, std::span<const ObjectIndex> objects) {
  RowNative native;
  std::map<std::string_view, ClassNative> classes;
  for (ObjectIndex i : objects) {
    if (heap.type(i) != ObjectType::kData) continue;
    ++native.data_objects;
    // The Ruby class where the dump names one, else the C struct's name.
    std::string_view name = heap.class_name(i);
    if (name.empty()) name = heap.own_name(i);
    ClassNative& entry = classes[name];
    ++entry.count;
    const std::uint32_t memsize = heap.memsize(i);
    if (memsize > kDataSlotBytes) {
      native.native_bytes += memsize - kDataSlotBytes;
      entry.bytes += memsize - kDataSlotBytes;
    }
    if (undercounts(name, memsize)) {
      ++native.undercounted;
      ++entry.undercounted;
    }
  }
  // The class named is the likeliest holder of C memory: objects whose
  // memsize under-counts first (what they hold is unseen), then the most
  // bytes memsize does see, then the most objects. A Zlib::Deflate's Mutex
  // (one each, a small dsize) is not what holds its 256 KiB.
  const auto rank = [](const ClassNative& c) {
    return std::tuple(c.undercounted, c.bytes, c.count);
  };
  const ClassNative* top = nullptr;
  for (const auto& [name, entry] : classes) {
    if (top && rank(entry) <= rank(*top)) continue;
    top = &entry;
    native.top_class = name.empty() ? "DATA" : std::string(name);
    native.top_count = entry.count;
  }
  return native;
}

}  // namespace heapleak
