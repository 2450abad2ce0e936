// The in-memory model of one loaded dump: an immutable snapshot, shared
// read-only between concurrent queries. Objects are sorted by address and
// named by their uint32_t index; columns are stored struct-of-arrays and
// references in CSR form in both directions. Built only by HeapBuilder.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/address.h"
#include "core/base/column.h"
#include "core/base/file_identity.h"
#include "core/base/object_type.h"
#include "core/base/string_pool.h"
#include "core/heap/analysis_slot.h"
#include "core/heap/shape_table.h"
#include "core/reading/gzip_index.h"

namespace heapleak {

// The analyses a heap caches (core/graph/): named here, defined above the
// heap model, which keeps them in opaque slots (core/heap/analysis_slot.h).
class DominatorTree;
class RootPaths;

using ObjectIndex = std::uint32_t;
inline constexpr ObjectIndex kNoObject = UINT32_MAX;

struct RootCategory {
  std::string name;  // vm, machine_context, global_list, ... (a label, not an enum)
  std::vector<ObjectIndex> targets;
};

// Whether a load used the cache (core/images/heap_cache.h): off (disabled), miss
// (parsed, image written), hit (mapped from an image), rebuilt (an image was
// there but stale, corrupt, truncated or of another version: deleted, parsed).
enum class CacheUse { kOff, kMiss, kHit, kRebuilt };
const char* cache_use_name(CacheUse use);  // "off", "miss", "hit", "rebuilt"

// What the loader saw, reported to the user next to the answers.
struct LoadReport {
  std::string path;
  bool gzip = false;
  std::uint64_t file_bytes = 0;
  std::uint64_t stream_bytes = 0;  // decompressed
  std::uint64_t lines = 0;
  std::uint64_t objects = 0;
  std::uint64_t root_records = 0;
  std::uint64_t shapes = 0;
  std::uint64_t broken_lines = 0;
  std::vector<std::uint64_t> first_broken_lines;  // 1-based, at most kMaxBrokenListed
  std::vector<std::string> first_broken_reasons;
  std::uint64_t duplicate_addresses = 0;
  std::uint64_t missing_references = 0;  // references to addresses absent from the dump
  std::uint64_t references = 0;          // resolved edges (after de-duplication)
  bool traced = false;                   // allocation tracing (file/line/generation) seen
  bool edges_built = true;
  double seconds = 0;
  // A dump cut short (see load_warnings.h): no final newline, or a gzip
  // stream that ends mid-member. What was read is loaded.
  bool ends_mid_line = false;
  bool gzip_truncated = false;
  std::uint64_t long_lines = 0;  // lines past the line cap, dropped (also in broken_lines)
  FileIdentity identity;         // the file as it was read, for read_record_text
  // Set by the cache, never stored in an image (core/images/heap_cache.h).
  CacheUse cache = CacheUse::kOff;
  std::vector<std::string> cache_warnings;  // an image ignored and rebuilt, an unwritable cache

  static constexpr std::size_t kMaxBrokenListed = 20;
};

// Columns, filled by HeapBuilder. Optional columns are empty when no object
// in the dump had that field.
//
// Cache images (core/heap_image_*.h) store every column listed in
// for_each_column below: a new column is one line there, and any change to
// the columns (added, removed, retyped, new meaning) must bump
// kHeapImageVersion so images written before are rebuilt, never misread.
// Members that are not Columns (roots, shapes, names, gzip_index) have their
// own sections in core/images/heap_image_writer.cpp.
inline constexpr std::uint32_t kHeapImageVersion =
    5;  // 2: the shape table, 3: reference counts in `length`, 4: ctime in the key,
        // 5: STRING bytesize in `length`

// In the length column: the value is a record's reference count, not an
// Array's length or a Hash's size.
inline constexpr std::uint32_t kReferenceCountFlag = 0x80000000u;

struct HeapColumns {
  Column<Address> address;
  Column<ObjectType> type;
  Column<ObjectIndex> class_index;    // index of the object's class, or kNoObject
  Column<std::uint32_t> own_name;     // CLASS/MODULE name, DATA struct, IMEMO kind
  Column<std::uint32_t> memsize;      // saturated at 4 GiB
  Column<std::uint32_t> value_hash;   // fingerprint of `value`, 0 if none
  Column<std::uint32_t> first_ref;    // fingerprint of the first reference, 0 if none
  Column<std::uint64_t> line_offset;  // where the record starts in the decompressed stream
  Column<std::uint32_t>
      length;  // ARRAY `length` / HASH `size` / STRING `bytesize` + 1, 0 if absent (saturated)
  Column<std::uint32_t> file;         // optional: allocation file (interned)
  Column<std::uint32_t> line;         // optional
  Column<std::uint32_t> method;       // optional: allocation method (interned)
  Column<std::uint32_t> generation;   // optional: GC generation + 1, 0 if absent
  Column<std::uint32_t> out_offsets;  // CSR: references of i are out_edges[out_offsets[i]..[i+1])
  Column<ObjectIndex> out_edges;
  Column<std::uint32_t> in_offsets;  // CSR: referrers
  Column<ObjectIndex> in_edges;
  std::vector<RootCategory> roots;
  ShapeTable shapes;  // SHAPE records (Ruby 3.2+), for naming ivars; empty before 3.2
  StringPool names;
  std::shared_ptr<const GzipIndex> gzip_index;  // gzip dumps: random access to records
};

// Calls f(name, column) for every Column member of HeapColumns: the one table
// the cache image writer and reader use (section names are the names here).
template <class Columns, class F>
void for_each_column(Columns& c, F&& f) {
  f("address", c.address);
  f("type", c.type);
  f("class_index", c.class_index);
  f("own_name", c.own_name);
  f("memsize", c.memsize);
  f("value_hash", c.value_hash);
  f("first_ref", c.first_ref);
  f("line_offset", c.line_offset);
  f("length", c.length);
  f("file", c.file);
  f("line", c.line);
  f("method", c.method);
  f("generation", c.generation);
  f("out_offsets", c.out_offsets);
  f("out_edges", c.out_edges);
  f("in_offsets", c.in_offsets);
  f("in_edges", c.in_edges);
}

// The cache image a heap was mapped from or written to (core/images/heap_cache.h):
// its analyses are kept in a file next to it, bound to the image's checksum.
struct ImageBinding {
  std::string image_path;
  std::uint64_t image_checksum = 0;  // the image header's: names its exact content
  unsigned kept = 0;                 // analyses on disk already (core/heap/analysis_cost.h's bits)
};

class Heap {
 public:
  Heap(HeapColumns columns, LoadReport report);
  ~Heap();
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  std::size_t size() const { return c_.address.size(); }
  const LoadReport& report() const { return report_; }
  // Everything the heap holds, for the cache image writer.
  const HeapColumns& columns() const { return c_; }

  std::optional<ObjectIndex> find(Address address) const;

  Address address(ObjectIndex i) const { return c_.address[i]; }
  ObjectType type(ObjectIndex i) const { return c_.type[i]; }
  ObjectIndex class_index(ObjectIndex i) const { return c_.class_index[i]; }
  std::uint32_t memsize(ObjectIndex i) const { return c_.memsize[i]; }
  std::uint32_t value_hash(ObjectIndex i) const { return c_.value_hash[i]; }
  std::uint32_t first_ref(ObjectIndex i) const { return c_.first_ref[i]; }
  std::uint64_t line_offset(ObjectIndex i) const { return c_.line_offset[i]; }

  // CLASS/MODULE name, DATA struct name or IMEMO kind; empty when absent.
  std::string_view own_name(ObjectIndex i) const { return c_.names.at(c_.own_name[i]); }
  // A string interned in this heap's pool (shape edge names, ...).
  std::string_view interned(std::uint32_t id) const { return c_.names.at(id); }
  // Name of the object's class: empty when the class is anonymous or unknown.
  std::string_view class_name(ObjectIndex i) const;

  bool has_allocation_info() const { return !c_.file.empty() && sites_from_ != kNoSites; }
  bool has_generation() const { return !c_.generation.empty() && sites_from_ != kNoSites; }
  std::string_view file(ObjectIndex i) const {
    return c_.file.empty() || !site_trusted(i) ? "" : c_.names.at(c_.file[i]);
  }
  std::uint32_t line(ObjectIndex i) const {
    return c_.line.empty() || !site_trusted(i) ? 0 : c_.line[i];
  }
  std::string_view method(ObjectIndex i) const {
    return c_.method.empty() || !site_trusted(i) ? "" : c_.names.at(c_.method[i]);
  }
  // Allocation sites (file, line, method, generation) are believed only on
  // objects of generation `from` or later; kNoSites: on none. The capture
  // manifest says when the series turned tracing on (core/loading/site_trust.h): the
  // tracer's table outlives a stopped trace and lends an earlier series'
  // sites to new objects at reused addresses. Set once, right after the
  // load and before the heap is shared; 0 (the default) believes all.
  static constexpr std::uint32_t kNoSites = 0xFFFFFFFFu;
  void trust_sites_from(std::uint32_t from) const { sites_from_ = from; }
  std::uint32_t sites_trusted_from() const { return sites_from_; }
  std::optional<std::uint32_t> generation(ObjectIndex i) const;
  // An ARRAY's `length`, a HASH's `size` or a STRING's `bytesize`, kept in
  // every load (identity-only too) so growth from dump to dump can be read.
  std::optional<std::uint32_t> length(ObjectIndex i) const;
  // For any other object, how many references its record lists (duplicates
  // and objects missing from the dump included), in the same column and so
  // in every load: the growth of a holder that is no Array or Hash (a
  // Thread, a module, a Ractor).
  std::optional<std::uint32_t> record_reference_count(ObjectIndex i) const;

  bool has_edges() const { return !c_.out_offsets.empty(); }
  std::span<const ObjectIndex> references(ObjectIndex i) const;
  std::span<const ObjectIndex> referrers(ObjectIndex i) const;
  // The object's class as an edge (kNoObject when absent or IMEMO). Ruby
  // marks an object's class, and through it a singleton class and all it
  // holds (class_attribute values, singleton methods' closures), but the
  // dump lists it as `class`, never among `references`: reachability, root
  // paths and dominators follow it as one more reference, kept in the class
  // column instead of the edge arrays (no bytes per object).
  ObjectIndex class_edge(ObjectIndex i) const { return c_.class_index[i]; }
  const std::vector<RootCategory>& roots() const { return c_.roots; }
  const ShapeTable& shapes() const { return c_.shapes; }
  const GzipIndex* gzip_index() const { return c_.gzip_index.get(); }

  // Resident bytes of the columns, edges and names (what a load costs).
  std::size_t bytes_used() const;

  // Analyses computed once, on first use, and cached on the snapshot.
  // Defined in core/graph/root_paths.cpp and dominators.cpp, with their
  // seed_ twins below: the analyses fill the slots, the model only holds them.
  const RootPaths& root_paths() const;
  const DominatorTree& dominators() const;
  // Whether they are cached yet, and the bytes the cached ones hold (not in
  // bytes_used(): a budget charges them when they appear).
  bool has_root_paths() const { return root_paths_.ready(); }
  bool has_dominators() const { return dominators_.ready(); }
  std::size_t analyses_bytes_used() const;

  // Analyses computed by an earlier process and mapped from the cache
  // (core/images/analyses_image.h): root_paths()/dominators() return them instead
  // of computing. Ignored when the heap has its own already.
  void seed_root_paths(std::unique_ptr<const RootPaths> paths) const;
  void seed_dominators(std::unique_ptr<const DominatorTree> tree) const;

  // Set by the cache when the heap came from, or went into, an image.
  std::optional<ImageBinding> image_binding() const;
  void bind_image(ImageBinding binding) const;
  void set_analyses_kept(unsigned kept) const;

 private:
  bool site_trusted(ObjectIndex i) const {
    if (sites_from_ == 0) return true;
    if (sites_from_ == kNoSites || c_.generation.empty() || c_.generation[i] == 0) return false;
    return c_.generation[i] - 1 >= sites_from_;
  }

  HeapColumns c_;
  LoadReport report_;
  mutable std::uint32_t sites_from_ = 0;
  mutable AnalysisSlot root_paths_;  // a RootPaths
  mutable AnalysisSlot dominators_;  // a DominatorTree
  mutable std::mutex binding_mutex_;
  mutable std::optional<ImageBinding> binding_;
};

}  // namespace heapleak
