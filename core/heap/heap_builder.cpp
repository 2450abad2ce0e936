#include "core/heap/heap_builder.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "core/base/in_halves.h"
#include "core/base/page_size.h"
#include "core/heap/address_index.h"
#include "core/heap/address_sort.h"
#include "core/heap/column_values.h"
#include "core/heap/order_runs.h"

namespace heapleak {
namespace {

// Reorders `column` so that position k holds what was at order[k], through
// `spare`: the values are gathered there, then the column takes the spare's
// buffer and the spare the column's old one, when that holds `spare_keeps`
// (else they are copied back). The reads follow the dump's page runs, so
// they stream (a memcpy per run, `runs`); rotating permutation cycles in
// place instead saves the spare but chains one cache miss per object and
// is several times slower.
// `two`: each half of `order` on a thread of its own (run_in_halves).
template <class T, class S>
void permute(Column<T>& column, const Column<ObjectIndex>& order, const OrderRuns& runs,
             Column<S>& spare, std::size_t spare_keeps, bool two) {
  static_assert(sizeof(T) <= sizeof(S) && std::is_trivially_copyable_v<T>);
  if (column.empty()) return;
  T* gathered = reinterpret_cast<T*>(spare.data());
  run_in_halves(two, order.size(), [&](std::size_t begin, std::size_t end) {
    runs.gather(gathered, column.data(), order.data(), begin, end);
  });
  // Duplicate addresses were left out of `order`, so it may be the shorter.
  if (column.trade_storage(spare, order.size(), spare_keeps)) {
    column.release_unused_pages();  // a narrow column in a wider spare's buffer
    return;
  }
  // Only once both halves are gathered: the copy overwrites what they read.
  run_in_halves(two, order.size(), [&](std::size_t begin, std::size_t end) {
    std::memcpy(column.data() + begin, gathered + begin, (end - begin) * sizeof(T));
  });
  column.resize(order.size());
}

}  // namespace

HeapBuilder::HeapBuilder(LoadMode mode) : full_(mode == LoadMode::kFull) {
  class_addresses_.push_back(0);
  ref_begin_.push_back(0);
}

void HeapBuilder::reserve(std::size_t objects, std::size_t references) {
  c_.address.reserve(objects);
  c_.type.reserve(objects);
  c_.class_index.reserve(objects);
  c_.own_name.reserve(objects);
  c_.memsize.reserve(objects);
  c_.value_hash.reserve(objects);
  c_.first_ref.reserve(objects);
  c_.length.reserve(objects);
  if (full_) {
    c_.line_offset.reserve(objects);
    ref_begin_.reserve(objects + 1);
    raw_refs_.reserve(references);
  }
}

namespace {
template <class T>
void add_range(std::vector<Prefaulter::Range>& out, const Column<T>& column) {
  if (column.capacity() == 0) return;
  out.push_back(
      Prefaulter::Range{column.data(), column.size() * sizeof(T), column.capacity() * sizeof(T)});
}
}  // namespace

void HeapBuilder::growing_ranges(std::vector<Prefaulter::Range>& out) const {
  out.clear();
  for_each_column(c_, [&](const char*, const auto& column) { add_range(out, column); });
  add_range(out, ref_begin_);
  add_range(out, raw_refs_);
}

void HeapBuilder::release_unused_pages() {
  for_each_column(c_, [](const char*, auto& column) { column.release_unused_pages(); });
  ref_begin_.release_unused_pages();
  raw_refs_.release_unused_pages();
}

std::vector<Column<std::uint32_t>*> HeapBuilder::allocation_columns() {
  std::vector<Column<std::uint32_t>*> columns = {&c_.file, &c_.line, &c_.generation};
  if (full_) columns.push_back(&c_.method);  // methods are kept by full loads only
  return columns;
}

void HeapBuilder::start_allocation_columns() {
  traced_ = true;
  const std::size_t n = c_.address.size();
  for (auto* column : allocation_columns()) {
    column->reserve(c_.address.capacity());
    column->assign(n, 0);
  }
}

namespace {
// Class objects sit in 40-byte slots: a multiplicative hash spreads them.
std::uint64_t class_hash(Address class_address) { return class_address * 0x9e3779b97f4a7c15ULL; }
}  // namespace

std::uint32_t HeapBuilder::class_id(Address class_address) {
  if (class_address == 0) return 0;
  ClassSlot& cached = class_cache_[class_hash(class_address) >> 58];
  if (cached.address == class_address) return cached.id;
  const std::size_t mask = class_table_.size() - 1;
  std::size_t at = (class_hash(class_address) >> 32) & mask;
  while (class_table_[at].address != 0 && class_table_[at].address != class_address)
    at = (at + 1) & mask;
  if (class_table_[at].address == 0) {
    class_table_[at] =
        ClassSlot{class_address, static_cast<std::uint32_t>(class_addresses_.size())};
    class_addresses_.push_back(class_address);
  }
  cached = class_table_[at];
  if (2 * class_addresses_.size() > class_table_.size()) grow_class_table();
  return cached.id;
}

void HeapBuilder::grow_class_table() {
  std::vector<ClassSlot> bigger(class_table_.size() * 2);
  const std::size_t mask = bigger.size() - 1;
  for (const ClassSlot& slot : class_table_) {
    if (slot.address == 0) continue;
    std::size_t at = (class_hash(slot.address) >> 32) & mask;
    while (bigger[at].address != 0) at = (at + 1) & mask;
    bigger[at] = slot;
  }
  class_table_.swap(bigger);
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
  // Before Ruby 3.3 an IMEMO's `class` field can be junk: ignore it.
  c_.class_index.push_back(record.type == ObjectType::kImemo ? 0 : class_id(record.class_address));
  c_.own_name.push_back(record.own_name.empty() ? 0 : c_.names.intern(record.own_name));
  c_.memsize.push_back(saturate32(record.memsize));
  c_.value_hash.push_back(record.value_hash);
  c_.first_ref.push_back(record.references.empty() ? 0 : address_fingerprint(record.references[0]));
  c_.length.push_back(length_column_value(record, full_));
  if (traced_) {
    c_.file.push_back(record.file.empty() ? 0 : c_.names.intern(record.file));
    c_.line.push_back(saturate32(record.line));
    c_.generation.push_back(record.has_generation ? saturate32(record.generation + 1) : 0);
    if (full_) c_.method.push_back(record.method.empty() ? 0 : c_.names.intern(record.method));
  }
  if (full_) {
    c_.line_offset.push_back(line_offset);
    raw_refs_.insert(raw_refs_.end(), record.references.begin(), record.references.end());
    if (raw_refs_.size() > std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("more than 4 billion references in one dump");
    }
    ref_begin_.push_back(static_cast<std::uint32_t>(raw_refs_.size()));
  }
}

void HeapBuilder::add_root(const DumpRecord& record) {
  const std::uint32_t name =
      c_.names.intern(record.root_name.empty() ? "unnamed" : record.root_name);
  auto it = std::find_if(raw_roots_.begin(), raw_roots_.end(),
                         [&](const RawRoot& root) { return root.name == name; });
  if (it == raw_roots_.end()) {
    raw_roots_.push_back(RawRoot{name, {}});
    it = raw_roots_.end() - 1;
  }
  it->targets.insert(it->targets.end(), record.references.begin(), record.references.end());
}

void HeapBuilder::add_shape(const DumpRecord& record) {
  if (!full_ || !record.has_shape_id) return;
  const std::uint32_t name = record.edge_name.empty() ? 0 : c_.names.intern(record.edge_name);
  c_.shapes.add(record.shape_id, record.shape_parent, record.has_shape_parent,
                parse_shape_kind(record.shape_type), name);
}

namespace {

// Appends `from` to `to` and frees `from`: by moving its pages when it can
// (Column::append_pages), else by copying it. A column of the later half goes
// as soon as it is appended, so the merge holds one of them twice at most,
// not the whole half.
template <class T>
void append(Column<T>& to, Column<T>& from) {
  if (!to.append_pages(from)) to.insert(to.end(), from.begin(), from.end());
  from = Column<T>();
}

// The same, then each appended value through `map` (in place: the moved pages
// are resident already).
template <class T, class Map>
void append_mapped(Column<T>& to, Column<T>& from, Map map) {
  const std::size_t start = to.size();
  append(to, from);
  for (std::size_t k = start; k < to.size(); ++k) to[k] = map(to[k]);
}

}  // namespace

void HeapBuilder::absorb(HeapBuilder&& later) {
  HeapColumns& other = later.c_;
  // Ids of `later`'s names and classes in this builder. Interned in their
  // order of first appearance in the later lines, after this builder's:
  // the order one builder reading every line would have given them.
  std::vector<std::uint32_t> name_id(other.names.size(), StringPool::kEmpty);
  for (std::uint32_t id = 1; id < other.names.size(); ++id)
    name_id[id] = c_.names.intern(other.names.at(id));
  std::vector<std::uint32_t> class_of(later.class_addresses_.size(), 0);
  for (std::uint32_t id = 1; id < later.class_addresses_.size(); ++id)
    class_of[id] = class_id(later.class_addresses_[id]);
  auto to_name = [&](std::uint32_t id) { return name_id[id]; };

  const std::size_t objects = other.address.size();
  // Tracing may start in either half: objects before it get zeros.
  if (later.traced_ && !traced_) start_allocation_columns();
  if (objects > 0 && c_.address.size() > 0 && hole_begin_ == hole_end_) pad_to_page();
  // Each object's range of raw references: the later half's ranges follow
  // this one's references (and their padding), and its first entry (0)
  // takes the place of this half's last (its end), or of the hole's.
  const std::size_t slots = c_.address.size();
  const auto base = static_cast<std::uint64_t>(raw_refs_.size());
  append(c_.address, other.address);
  append(c_.type, other.type);
  append_mapped(c_.class_index, other.class_index, [&](std::uint32_t id) { return class_of[id]; });
  append_mapped(c_.own_name, other.own_name, to_name);
  append(c_.memsize, other.memsize);
  append(c_.value_hash, other.value_hash);
  append(c_.first_ref, other.first_ref);
  append(c_.length, other.length);
  if (traced_) {
    if (later.traced_) {
      append_mapped(c_.file, other.file, to_name);
      append(c_.line, other.line);
      append(c_.generation, other.generation);
      if (full_) append_mapped(c_.method, other.method, to_name);
    } else {
      for (auto* column : allocation_columns()) column->resize(column->size() + objects, 0);
    }
  }
  if (full_) {
    append(c_.line_offset, other.line_offset);
    if (base + later.raw_refs_.size() > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("more than 4 billion references in one dump");
    append(raw_refs_, later.raw_refs_);
    ref_begin_.resize(slots);
    append_mapped(ref_begin_, later.ref_begin_,
                  [base](std::uint32_t at) { return static_cast<std::uint32_t>(base + at); });
  }
  for (const RawRoot& root : later.raw_roots_) {
    const std::uint32_t name = name_id[root.name];
    auto it = std::find_if(raw_roots_.begin(), raw_roots_.end(),
                           [&](const RawRoot& mine) { return mine.name == name; });
    if (it == raw_roots_.end()) it = raw_roots_.insert(raw_roots_.end(), RawRoot{name, {}});
    it->targets.insert(it->targets.end(), root.targets.begin(), root.targets.end());
  }
  const ShapeTable& shapes = other.shapes;
  for (std::size_t id = 0; id < shapes.kind.size(); ++id) {
    if (shapes.kind[id] == ShapeKind::kAbsent) continue;
    c_.shapes.add(id, shapes.parent[id], shapes.parent[id] != ShapeTable::kNoShape, shapes.kind[id],
                  name_id[shapes.edge_name[id]]);
  }
  if (c_.address.size() >= kNoObject - 1)
    throw std::length_error("more than 4 billion objects in one dump");
  later = HeapBuilder(full_ ? LoadMode::kFull : LoadMode::kIdentityOnly);  // frees its memory
}

void HeapBuilder::pad_to_page() {
  // A page holds at least page_size() objects' worth of every column (the
  // narrowest takes a byte per object); one slot more at least, so that the
  // later half's first reference range entry replaces a hole's, not the
  // last object's.
  const std::size_t n = c_.address.size();
  const std::size_t page = page_size();
  const std::size_t padded = (n + 1 + page - 1) / page * page;
  for_each_column(c_, [&](const char*, auto& column) {
    if (column.size() == n) column.resize(padded);
  });
  hole_begin_ = static_cast<ObjectIndex>(n);
  hole_end_ = static_cast<ObjectIndex>(padded);
  if (full_) {
    const std::size_t per_page = page / sizeof(Address);
    raw_refs_.resize((raw_refs_.size() + per_page - 1) / per_page * per_page, 0);
    ref_begin_.resize(padded + 1, static_cast<std::uint32_t>(raw_refs_.size()));
  }
}

// Every column of 4 bytes or less: all an identity-only heap has but its
// addresses.
template <class S>
void permute_narrow_columns(HeapColumns& c, const Column<ObjectIndex>& order, const OrderRuns& runs,
                            Column<S>& scratch, std::size_t keeps, bool two) {
  permute(c.type, order, runs, scratch, keeps, two);
  permute(c.class_index, order, runs, scratch, keeps, two);
  permute(c.own_name, order, runs, scratch, keeps, two);
  permute(c.memsize, order, runs, scratch, keeps, two);
  permute(c.value_hash, order, runs, scratch, keeps, two);
  permute(c.first_ref, order, runs, scratch, keeps, two);
  permute(c.length, order, runs, scratch, keeps, two);
  permute(c.file, order, runs, scratch, keeps, two);
  permute(c.line, order, runs, scratch, keeps, two);
  permute(c.method, order, runs, scratch, keeps, two);
  permute(c.generation, order, runs, scratch, keeps, two);
}

void HeapBuilder::apply_order(const Column<ObjectIndex>& order, Column<std::uint64_t>& scratch) {
  // The 8-byte columns trade buffers with the scratch; the narrow ones are
  // copied back (their buffers are too small to be the scratch build_edges
  // needs after, and a second, 4-byte spare would raise the load's peak).
  const std::size_t m = order.size();
  const OrderRuns runs(order);
  permute(c_.address, order, runs, scratch, m + 1, two_threads_);
  permute(c_.line_offset, order, runs, scratch, m + 1, two_threads_);
  permute_narrow_columns(c_, order, runs, scratch, m + 1, two_threads_);
  scratch.resize_for_overwrite(m + 1);  // a traded buffer comes empty
}

void HeapBuilder::apply_order_consuming(Column<ObjectIndex>& order,
                                        Column<std::uint32_t>& scratch) {
  // A 4-byte scratch serves every column but the addresses (line_offset is
  // kept by full loads only), 4 bytes per object less at the peak of a load
  // (stats holds three heaps). The addresses go last, through that scratch
  // and `order` itself: the high halves gathered into the scratch, then each
  // order[k], read for the last time, replaced by the low half of its address.
  // Each narrow column trades buffers with the scratch (no copy back).
  const std::size_t m = order.size();
  scratch.resize_for_overwrite(m);  // each use writes what it reads
  const OrderRuns runs(order);
  permute_narrow_columns(c_, order, runs, scratch, m, two_threads_);
  scratch.resize_for_overwrite(m);  // a traded buffer comes empty
  for (std::size_t k = 0; k < m; ++k)
    scratch[k] = static_cast<std::uint32_t>(c_.address[order[k]] >> 32);
  for (std::size_t k = 0; k < m; ++k) order[k] = static_cast<std::uint32_t>(c_.address[order[k]]);
  c_.address.resize(m);
  for (std::size_t k = 0; k < m; ++k)
    c_.address[k] = (static_cast<Address>(scratch[k]) << 32) | order[k];
}

void HeapBuilder::resolve_classes() {
  // class id -> index of that class in the sorted heap (kNoObject when the
  // class is absent from the dump or is not a class).
  std::vector<ObjectIndex> index_of_id(class_addresses_.size(), kNoObject);
  for (std::uint32_t id = 1; id < class_addresses_.size(); ++id) {
    auto it = std::lower_bound(c_.address.begin(), c_.address.end(), class_addresses_[id]);
    if (it == c_.address.end() || *it != class_addresses_[id]) continue;
    const auto index = static_cast<ObjectIndex>(it - c_.address.begin());
    if (is_class_like(c_.type[index])) index_of_id[id] = index;
  }
  for (auto& klass : c_.class_index) klass = index_of_id[klass];
}

void HeapBuilder::build_edges(const Column<ObjectIndex>& order, Column<std::uint64_t>& scratch,
                              LoadReport& report) {
  const std::size_t n = c_.address.size();
  const bool two = two_threads_;
  // scratch holds at least n + 1 uint64s, so 2n + 2 uint32 slots.
  auto* const scratch32 = reinterpret_cast<std::uint32_t*>(scratch.data());
  resolve_addresses(c_.address, raw_refs_, {scratch32, scratch.size() * 2}, two);

  // Forward edges in two passes, so that both halves of the objects can go
  // at once: each object's references are sorted and de-duplicated in place,
  // in its own range of raw_refs_ (ranges never overlap), and counted; once
  // the counts are summed into offsets, each is copied to its place.
  constexpr Address kMissing = kNoObject;
  c_.out_offsets.assign(n + 1, 0);
  std::atomic<std::uint64_t> missing{0};
  run_in_halves(two, n, [&](std::size_t begin, std::size_t end) {
    std::uint64_t missed = 0;
    for (std::size_t k = begin; k < end; ++k) {
      const ObjectIndex old = order[k];
      Address* const first = raw_refs_.data() + ref_begin_[old];
      Address* const last = raw_refs_.data() + ref_begin_[old + 1];
      Address* kept = std::remove(first, last, kMissing);
      missed += static_cast<std::uint64_t>(last - kept);
      // A Hash or Array may hold one object many times: one edge is enough.
      std::sort(first, kept);
      kept = std::unique(first, kept);
      c_.out_offsets[k + 1] = static_cast<std::uint32_t>(kept - first);
    }
    missing += missed;
  });
  report.missing_references += missing;
  for (std::size_t k = 0; k < n; ++k) c_.out_offsets[k + 1] += c_.out_offsets[k];
  c_.out_edges.resize(c_.out_offsets[n]);
  run_in_halves(two, n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const Address* const first = raw_refs_.data() + ref_begin_[order[k]];
      std::uint32_t* out = c_.out_edges.data() + c_.out_offsets[k];
      for (std::uint32_t e = c_.out_offsets[k]; e < c_.out_offsets[k + 1]; ++e)
        *out++ = static_cast<ObjectIndex>(first[e - c_.out_offsets[k]]);
    }
  });
  // The raw references and their ranges are done with: their pages, faulted
  // in already, become the referrer arrays (ref_begin_ held an entry per
  // record and one more, raw_refs_ 8 bytes per reference: room enough).
  c_.in_offsets.adopt_storage(ref_begin_);
  c_.in_edges.adopt_storage(raw_refs_);

  // Referrers, counted and then filled by target: each half of the targets
  // on its own thread, each reading every edge. The reads stream; the
  // scattered writes are what costs, and they split.
  c_.in_offsets.assign(n + 1, 0);
  run_in_halves(two, n, [&](std::size_t begin, std::size_t end) {
    for (ObjectIndex target : c_.out_edges) {
      if (target >= begin && target < end) ++c_.in_offsets[target + 1];
    }
  });
  for (std::size_t i = 0; i < n; ++i) c_.in_offsets[i + 1] += c_.in_offsets[i];
  c_.in_edges.resize(c_.out_edges.size());
  // The address index is done with: the scratch becomes the fill cursors.
  std::uint32_t* const cursor = scratch32;
  std::copy(c_.in_offsets.begin(), c_.in_offsets.end() - 1, cursor);
  run_in_halves(two, n, [&](std::size_t begin, std::size_t end) {
    for (ObjectIndex source = 0; source < n; ++source) {
      for (std::uint32_t e = c_.out_offsets[source]; e < c_.out_offsets[source + 1]; ++e) {
        const ObjectIndex target = c_.out_edges[e];
        if (target >= begin && target < end) c_.in_edges[cursor[target]++] = source;
      }
    }
  });
  // Room was made for every raw reference (the prefaulter may have faulted
  // all of it in); duplicates and missing targets leave some unused.
  c_.out_edges.release_unused_pages();
  c_.in_offsets.release_unused_pages();
  c_.in_edges.release_unused_pages();
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
                                                std::chrono::steady_clock::time_point started,
                                                LoadProfile* profile, Prefaulter* prefaulter,
                                                bool two_threads) {
  two_threads_ = two_threads;
  auto step = [profile](const char* name) {
    if (profile) profile->step(name);
  };
  // The order by address, then (full loads) one scratch array that serves
  // the permutation and the edge build: reserved now, and faulted in on the
  // prefaulter's core while this one finds the dump's runs and sorts, with
  // the forward edge arrays (filled last; their room is known now: an entry
  // per record, one per raw reference).
  Column<ObjectIndex> order;
  order.reserve(c_.address.size());
  Column<std::uint64_t> scratch;
  Column<std::uint32_t> narrow_scratch;  // identity-only heaps': 4 bytes an object
  if (!full_) narrow_scratch.reserve(c_.address.size());
  if (full_) {
    scratch.reserve(c_.address.size() + 1);
    c_.out_offsets.reserve(c_.address.size() + 1);
    c_.out_edges.reserve(raw_refs_.size());
  }
  if (prefaulter) {
    auto whole = [](const auto& column) {
      return Prefaulter::Range{column.data(), 0, column.capacity() * sizeof(column[0]), true};
    };
    const Prefaulter::Range ranges[] = {whole(order), whole(scratch), whole(narrow_scratch),
                                        whole(c_.out_offsets), whole(c_.out_edges)};
    prefaulter->advance(ranges);
  }
  step("sort");
  report.duplicate_addresses +=
      sort_by_address(c_.address, hole_begin_, hole_end_, two_threads_, order);
  if (full_) {
    step("permute");
    // Each use writes what it reads: the gathers, the address index, the cursors.
    scratch.resize_for_overwrite(order.size() + 1);
    apply_order(order, scratch);
    step("classes");
    resolve_classes();
    step("edges");
    build_edges(order, scratch, report);
    step("free scratch");
  } else {
    step("permute");
    apply_order_consuming(order, narrow_scratch);
    step("classes");
    resolve_classes();
  }
  step("roots");
  build_roots(report);
  step("heap");
  report.objects = c_.address.size();
  report.traced = traced_;
  report.edges_built = full_;
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return std::make_shared<const Heap>(std::move(c_), std::move(report));
}

}  // namespace heapleak
