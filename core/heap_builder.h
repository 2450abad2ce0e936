// Turns parsed records, in file order, into an immutable Heap: sorts objects
// by address, drops duplicate addresses, resolves class and reference
// addresses to indices (counting the ones absent from the dump) and builds
// the CSR edge arrays in both directions.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/heap.h"
#include "core/record_parser.h"

namespace heapleak {

class HeapBuilder {
 public:
  // Without edges the heap still answers identity questions (enough for the
  // leak diff) at a fraction of the memory and time.
  explicit HeapBuilder(bool build_edges);

  // Room for about this many objects and references, so the columns are
  // not copied as they grow (unused capacity is never touched, so not resident).
  void reserve(std::size_t objects, std::size_t references);

  void add_object(const DumpRecord& record, std::uint64_t line_offset);
  void add_root(const DumpRecord& record);
  std::size_t object_count() const { return c_.address.size(); }

  // Consumes the builder. `report` gets the counts only the build knows and
  // the seconds elapsed since `started`.
  std::shared_ptr<const Heap> finish(LoadReport report, std::chrono::steady_clock::time_point started);

 private:
  struct RawRoot {
    std::uint32_t name;
    std::vector<Address> targets;
  };

  void start_allocation_columns();
  Column<ObjectIndex> sort_by_address(LoadReport& report);
  void resolve_classes(const Column<Address>& class_address);
  void build_edges(const Column<ObjectIndex>& order, LoadReport& report);
  void build_roots(LoadReport& report);

  HeapColumns c_;  // in file order until finish() sorts it
  Column<Address> class_address_;
  Column<std::uint32_t> ref_begin_;  // raw_refs_ range of object i: [ref_begin_[i], ref_begin_[i+1])
  Column<Address> raw_refs_;
  std::vector<RawRoot> raw_roots_;
  bool build_edges_;
  bool traced_ = false;
};

}  // namespace heapleak
