// A loaded heap as the tables `heapleak export` writes (docs/tables.md), named
// after Perfetto's heap graph tables: heap_object, heap_reference, heap_class,
// heap_root and heap_dominator, one file each in OUTDIR, as JSON lines or CSV.
// This file owns the layout (columns, their order and meaning); the writing
// itself is core/reports/table_writer.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/heap/heap.h"
#include "core/reports/table_writer.h"

namespace heapleak {

struct ExportOptions {
  TableFormat format = TableFormat::kJsonLines;
  // Name the ivar of each reference from the dump's shapes (Ruby 3.2+):
  // re-reads every holder's record, several times slower than the export.
  bool ivar_names = false;
};

struct ExportedTable {
  std::string name;  // heap_object, ...
  std::string path;
  std::uint64_t rows = 0;
};

// Writes the five tables into `outdir` (created when missing). Computes the
// dominator tree and the root paths when the heap has not yet.
Result<std::vector<ExportedTable>> export_heap_tables(const Heap& heap, const std::string& outdir,
                                                      const ExportOptions& options = {});

}  // namespace heapleak
