#include "core/heap_builder.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace heapleak {
namespace {

std::uint32_t saturate32(std::uint64_t value) {
  return value > std::numeric_limits<std::uint32_t>::max() ? std::numeric_limits<std::uint32_t>::max()
                                                           : static_cast<std::uint32_t>(value);
}

std::uint32_t address_fingerprint(Address address) {
  std::uint64_t x = address * 0x9E3779B97F4A7C15ull;
  auto folded = static_cast<std::uint32_t>(x ^ (x >> 32));
  return folded == 0 ? 1 : folded;
}

template <class T>
void permute(Column<T>& column, const Column<ObjectIndex>& order) {
  if (column.empty()) return;
  Column<T> sorted(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) sorted[k] = column[order[k]];
  column = std::move(sorted);
}

// Address -> index, open addressing over indices into the sorted address
// column: one probe is usually one cache miss, where a binary search over
// millions of addresses costs a dozen.
class AddressIndex {
 public:
  explicit AddressIndex(const Column<Address>& addresses) : addresses_(addresses) {
    const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, addresses.size() * 2));
    mask_ = capacity - 1;
    shift_ = 64 - std::countr_zero(capacity);
    slots_.assign(capacity, kNoObject);
    for (ObjectIndex i = 0; i < addresses.size(); ++i) {
      std::size_t slot = home(addresses[i]);
      while (slots_[slot] != kNoObject) slot = (slot + 1) & mask_;
      slots_[slot] = i;
    }
  }

  ObjectIndex find(Address address) const {
    for (std::size_t slot = home(address);; slot = (slot + 1) & mask_) {
      const ObjectIndex i = slots_[slot];
      if (i == kNoObject || addresses_[i] == address) return i;
    }
  }

 private:
  std::size_t home(Address address) const {
    return static_cast<std::size_t>((address * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }

  const Column<Address>& addresses_;
  Column<ObjectIndex> slots_;
  std::size_t mask_ = 0;
  int shift_ = 0;
};

}  // namespace

HeapBuilder::HeapBuilder(bool build_edges) : build_edges_(build_edges) {
  ref_begin_.push_back(0);
}

void HeapBuilder::reserve(std::size_t objects, std::size_t references) {
  c_.address.reserve(objects);
  c_.type.reserve(objects);
  class_address_.reserve(objects);
  c_.own_name.reserve(objects);
  c_.memsize.reserve(objects);
  c_.value_hash.reserve(objects);
  c_.first_ref.reserve(objects);
  c_.line_offset.reserve(objects);
  if (build_edges_) {
    ref_begin_.reserve(objects + 1);
    raw_refs_.reserve(references);
  }
}

void HeapBuilder::start_allocation_columns() {
  traced_ = true;
  const std::size_t n = c_.address.size();
  for (auto* column : {&c_.file, &c_.line, &c_.method, &c_.generation}) {
    column->reserve(c_.address.capacity());
    column->assign(n, 0);
  }
}

void HeapBuilder::add_object(const DumpRecord& record, std::uint64_t line_offset) {
  if (c_.address.size() >= kNoObject - 1) {
    throw std::length_error("more than 4 billion objects in one dump");
  }
  // Tracing can start mid-run: objects before the first traced one get zeros.
  const bool has_allocation = !record.file.empty() || record.has_line || record.has_generation;
  if (has_allocation && !traced_) start_allocation_columns();
  c_.address.push_back(record.address);
  c_.type.push_back(record.type);
  class_address_.push_back(record.class_address);
  c_.own_name.push_back(record.own_name.empty() ? 0 : c_.names.intern(record.own_name));
  c_.memsize.push_back(saturate32(record.memsize));
  c_.value_hash.push_back(record.value_hash);
  c_.first_ref.push_back(record.references.empty() ? 0 : address_fingerprint(record.references[0]));
  c_.line_offset.push_back(line_offset);
  if (traced_) {
    c_.file.push_back(record.file.empty() ? 0 : c_.names.intern(record.file));
    c_.line.push_back(saturate32(record.line));
    c_.method.push_back(record.method.empty() ? 0 : c_.names.intern(record.method));
    c_.generation.push_back(record.has_generation ? saturate32(record.generation + 1) : 0);
  }
  if (build_edges_) {
    raw_refs_.insert(raw_refs_.end(), record.references.begin(), record.references.end());
    if (raw_refs_.size() > std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("more than 4 billion references in one dump");
    }
    ref_begin_.push_back(static_cast<std::uint32_t>(raw_refs_.size()));
  }
}

void HeapBuilder::add_root(const DumpRecord& record) {
  const std::uint32_t name = c_.names.intern(record.root_name.empty() ? "unnamed" : record.root_name);
  auto it = std::find_if(raw_roots_.begin(), raw_roots_.end(),
                         [&](const RawRoot& root) { return root.name == name; });
  if (it == raw_roots_.end()) {
    raw_roots_.push_back(RawRoot{name, {}});
    it = raw_roots_.end() - 1;
  }
  it->targets.insert(it->targets.end(), record.references.begin(), record.references.end());
}

Column<ObjectIndex> HeapBuilder::sort_by_address(LoadReport& report) {
  const std::size_t n = c_.address.size();
  Column<ObjectIndex> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (!std::is_sorted(c_.address.begin(), c_.address.end())) {
    // Sort (address, position) pairs: comparisons stay in cache, unlike an
    // index sort that chases the address column.
    Column<std::pair<Address, ObjectIndex>> keyed(n);
    for (ObjectIndex i = 0; i < n; ++i) keyed[i] = {c_.address[i], i};
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t k = 0; k < n; ++k) order[k] = keyed[k].second;
  }
  // Keep the first record of a duplicated address; later ones are dropped.
  std::size_t kept = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (kept > 0 && c_.address[order[kept - 1]] == c_.address[order[k]]) {
      ++report.duplicate_addresses;
      continue;
    }
    order[kept++] = order[k];
  }
  order.resize(kept);
  return order;
}

void HeapBuilder::resolve_classes(const Column<Address>& class_address) {
  std::vector<std::pair<Address, ObjectIndex>> classes;
  for (ObjectIndex i = 0; i < c_.address.size(); ++i) {
    if (is_class_like(c_.type[i])) classes.emplace_back(c_.address[i], i);
  }  // already sorted by address
  c_.class_index.assign(c_.address.size(), kNoObject);
  for (ObjectIndex i = 0; i < c_.address.size(); ++i) {
    // Before Ruby 3.3 an IMEMO's `class` field can be junk: ignore it.
    if (class_address[i] == 0 || c_.type[i] == ObjectType::kImemo) continue;
    auto it = std::lower_bound(classes.begin(), classes.end(),
                               std::pair<Address, ObjectIndex>{class_address[i], 0});
    if (it != classes.end() && it->first == class_address[i]) c_.class_index[i] = it->second;
  }
}

void HeapBuilder::build_edges(const Column<ObjectIndex>& order, LoadReport& report) {
  const std::size_t n = c_.address.size();
  const AddressIndex index(c_.address);
  c_.out_offsets.assign(n + 1, 0);
  c_.out_edges.reserve(raw_refs_.size());
  std::vector<ObjectIndex> targets;
  for (std::size_t k = 0; k < n; ++k) {
    const ObjectIndex old = order[k];
    targets.clear();
    for (std::uint32_t r = ref_begin_[old]; r < ref_begin_[old + 1]; ++r) {
      const ObjectIndex target = index.find(raw_refs_[r]);
      if (target == kNoObject) {
        ++report.missing_references;
      } else {
        targets.push_back(target);
      }
    }
    // A Hash or Array may hold one object many times: one edge is enough.
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    c_.out_edges.insert(c_.out_edges.end(), targets.begin(), targets.end());
    c_.out_offsets[k + 1] = static_cast<std::uint32_t>(c_.out_edges.size());
  }
  Column<Address>().swap(raw_refs_);
  Column<std::uint32_t>().swap(ref_begin_);
  c_.out_edges.shrink_to_fit();

  c_.in_offsets.assign(n + 1, 0);
  for (ObjectIndex target : c_.out_edges) ++c_.in_offsets[target + 1];
  for (std::size_t i = 0; i < n; ++i) c_.in_offsets[i + 1] += c_.in_offsets[i];
  c_.in_edges.resize(c_.out_edges.size());
  Column<std::uint32_t> cursor(c_.in_offsets.begin(), c_.in_offsets.end() - 1);
  for (ObjectIndex source = 0; source < n; ++source) {
    for (std::uint32_t e = c_.out_offsets[source]; e < c_.out_offsets[source + 1]; ++e) {
      c_.in_edges[cursor[c_.out_edges[e]]++] = source;
    }
  }
  report.references = c_.out_edges.size();
}

void HeapBuilder::build_roots(LoadReport& report) {
  for (auto& raw : raw_roots_) {
    RootCategory root{std::string(c_.names.at(raw.name)), {}};
    for (Address address : raw.targets) {
      auto it = std::lower_bound(c_.address.begin(), c_.address.end(), address);
      if (it != c_.address.end() && *it == address) {
        root.targets.push_back(static_cast<ObjectIndex>(it - c_.address.begin()));
      } else {
        ++report.missing_references;
      }
    }
    std::sort(root.targets.begin(), root.targets.end());
    root.targets.erase(std::unique(root.targets.begin(), root.targets.end()), root.targets.end());
    c_.roots.push_back(std::move(root));
  }
}

std::shared_ptr<const Heap> HeapBuilder::finish(LoadReport report,
                                                std::chrono::steady_clock::time_point started) {
  Column<ObjectIndex> order = sort_by_address(report);
  permute(c_.address, order);
  permute(c_.type, order);
  permute(class_address_, order);
  permute(c_.own_name, order);
  permute(c_.memsize, order);
  permute(c_.value_hash, order);
  permute(c_.first_ref, order);
  permute(c_.line_offset, order);
  permute(c_.file, order);
  permute(c_.line, order);
  permute(c_.method, order);
  permute(c_.generation, order);
  resolve_classes(class_address_);
  Column<Address>().swap(class_address_);
  if (build_edges_) build_edges(order, report);
  build_roots(report);
  report.objects = c_.address.size();
  report.traced = traced_;
  report.edges_built = build_edges_;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return std::make_shared<const Heap>(std::move(c_), std::move(report));
}

}  // namespace heapleak
