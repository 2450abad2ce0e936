// Turns parsed records, in file order, into an immutable Heap: sorts objects
// by address, drops duplicate addresses, resolves class and reference
// addresses to indices (counting the ones absent from the dump) and builds
// the CSR edge arrays in both directions.
//
// Memory first touched is the dominant cost of a load on a VM (a fault and a
// zeroed page per 4 KiB), so the builder keeps few transient arrays and
// permutes columns in place.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/heap/heap.h"
#include "core/reading/load_mode.h"
#include "core/reading/load_profile.h"
#include "core/reading/prefaulter.h"
#include "core/reading/record_parser.h"

namespace heapleak {

class HeapBuilder {
 public:
  // A full heap keeps references (both directions), record offsets and
  // allocation methods. Without them (`full` false) it still answers identity
  // questions, which is all the leak diff needs, at about half the memory.
  explicit HeapBuilder(LoadMode mode);

  // Room for about this many objects and references, so the columns are
  // not copied as they grow (unused capacity is never touched, so not resident).
  void reserve(std::size_t objects, std::size_t references);

  void add_object(const DumpRecord& record, std::uint64_t line_offset);
  void add_root(const DumpRecord& record);
  // A SHAPE record: kept in full loads only (names ivars on demand).
  void add_shape(const DumpRecord& record);
  void set_gzip_index(std::shared_ptr<const GzipIndex> index) { c_.gzip_index = std::move(index); }
  std::size_t object_count() const { return c_.address.size() - (hole_end_ - hole_begin_); }
  // The arrays parsing appends to, for a Prefaulter to fault in ahead.
  void growing_ranges(std::vector<Prefaulter::Range>& out) const;
  // Appends what `later` built from the lines that follow this builder's
  // (the second half of a load split in two, core/loading/loader.cpp), consuming
  // it: names, classes, shapes and roots get the ids one builder would have
  // given them, so the heap is the one a single builder makes of all lines.
  // Its columns' pages are moved here, not copied (Column::append_pages),
  // after a hole that pads this builder's columns to a page: slots that
  // hold no object, which finish() leaves out.
  void absorb(HeapBuilder&& later);
  // Once parsing is over: gives back the pages past each array's end (the
  // prefaulter's lead, the rest of a 2 MiB mapping unit), before finish() adds its own.
  void release_unused_pages();

  // Consumes the builder. `report` gets the counts only the build knows and
  // the seconds elapsed since `started`; `profile`, if given, each step's.
  // `prefaulter`, if given, faults in the edge arrays while the sort runs.
  // `two_threads`: the load runs alone, so the permutation and the edges
  // take both cores (each loop in halves); the heap is the same either way.
  std::shared_ptr<const Heap> finish(LoadReport report,
                                     std::chrono::steady_clock::time_point started,
                                     LoadProfile* profile = nullptr,
                                     Prefaulter* prefaulter = nullptr, bool two_threads = false);

 private:
  struct RawRoot {
    std::uint32_t name;
    std::vector<Address> targets;
  };

  std::uint32_t class_id(Address class_address);
  // The allocation-site columns (file, line, generation; method in full
  // loads), filled only once a traced record appears.
  std::vector<Column<std::uint32_t>*> allocation_columns();
  void start_allocation_columns();
  // Pads every column to a page boundary, for absorb(): the hole.
  void pad_to_page();
  void apply_order(const Column<ObjectIndex>& order, Column<std::uint64_t>& scratch);
  // Identity-only heaps: the same with a 4-byte scratch (room for the
  // order, reserved by the caller); uses `order` up.
  void apply_order_consuming(Column<ObjectIndex>& order, Column<std::uint32_t>& scratch);
  void resolve_classes();
  void build_edges(const Column<ObjectIndex>& order, Column<std::uint64_t>& scratch,
                   LoadReport& report);
  void build_roots(LoadReport& report);

  HeapColumns c_;  // in file order until finish() sorts it
  // Classes are few: objects carry a small class id (in c_.class_index)
  // until finish() maps ids to the classes' object indices.
  std::vector<Address> class_addresses_;  // by class id; id 0 is "no class"
  struct ClassSlot {
    Address address = 0;  // 0: free
    std::uint32_t id = 0;
  };
  // Class address -> id, open addressing, at most half full: one probe is
  // one cache line. A Rails app has tens of thousands of classes, and the
  // node-based std::unordered_map this replaced missed the cache twice per
  // lookup (~3% of a load's samples).
  std::vector<ClassSlot> class_table_ = std::vector<ClassSlot>(1024);
  // A direct-mapped cache in front of it, in L1: objects of a few classes
  // interleave (String, Array, Hash...), so the last class alone misses often.
  static constexpr std::size_t kClassCacheSlots = 64;
  ClassSlot class_cache_[kClassCacheSlots];
  void grow_class_table();
  Column<std::uint32_t>
      ref_begin_;  // raw_refs_ range of object i: [ref_begin_[i], ref_begin_[i+1])
  Column<Address> raw_refs_;
  std::vector<RawRoot> raw_roots_;
  bool full_;
  bool traced_ = false;
  bool two_threads_ = false;  // finish()'s loops in halves, on two threads
  // Slots [hole_begin_, hole_end_) of the columns hold no object (pad_to_page).
  ObjectIndex hole_begin_ = 0;
  ObjectIndex hole_end_ = 0;
};

}  // namespace heapleak
