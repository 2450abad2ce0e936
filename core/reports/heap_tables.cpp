#include "core/reports/heap_tables.h"

#include <filesystem>
#include <string_view>
#include <thread>

#include "core/diagnosis/ownership.h"
#include "core/graph/dominators.h"
#include "core/graph/root_paths.h"
#include "core/heap/ivar_names.h"
#include "core/heap/object_key.h"

namespace heapleak {
namespace {

// What heap_class says of each key besides its retention.
struct ClassRow {
  std::uint64_t count = 0;
  std::uint64_t self_bytes = 0;
  ObjectIndex klass = kNoObject;  // the class of all its objects, when one
  bool one_class = true;
  bool seen = false;
};

std::vector<ClassRow> class_rows(const Heap& heap, const ObjectKeys& keys) {
  std::vector<ClassRow> rows(keys.names.size());
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    ClassRow& row = rows[keys.of[i]];
    if (!row.seen) {
      row.seen = true;
      row.klass = heap.class_index(i);
    }
    ++row.count;
    row.self_bytes += heap.memsize(i);
    if (row.klass != heap.class_index(i)) row.one_class = false;
  }
  return rows;
}

template <class F>
Result<ExportedTable> write_table(const std::string& outdir, const char* name,
                                  const ExportOptions& options, std::vector<std::string> columns,
                                  F&& rows) {
  const std::string path =
      (std::filesystem::path(outdir) / (std::string(name) + table_extension(options.format)))
          .string();
  auto writer = TableWriter::create(path, options.format, std::move(columns));
  if (!writer) return writer.error();
  rows(**writer);
  auto written = (*writer)->finish();
  if (!written) return written.error();
  return ExportedTable{name, path, *written};
}

void write_objects(const Heap& heap, const ObjectKeys& keys, TableWriter& out) {
  const DominatorTree& tree = heap.dominators();
  const RootPaths& paths = heap.root_paths();
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    out.number(i);
    out.address(heap.address(i));
    out.text(object_type_name(heap.type(i)));
    out.text(keys.names[keys.of[i]]);
    if (const ObjectIndex klass = heap.class_index(i); klass != kNoObject)
      out.number(klass);
    else
      out.null();
    out.number(heap.memsize(i));
    if (heap.has_allocation_info() && !heap.file(i).empty()) {
      out.text(heap.file(i));
      out.number(heap.line(i));
      out.text(heap.method(i));
    } else {
      out.null();
      out.null();
      out.null();
    }
    if (auto generation = heap.generation(i))
      out.number(*generation);
    else
      out.null();
    if (const int category = paths.root_category(i); category >= 0)
      out.text(heap.roots()[static_cast<std::size_t>(category)].name);
    else
      out.null();
    if (const ObjectIndex parent = paths.parent(i); parent != kNoObject)
      out.number(parent);
    else
      out.null();
    out.boolean(tree.reachable(i));
    out.number(tree.retained(i));
    out.end_row();
  }
}

void write_references(const Heap& heap, const ExportOptions& options, TableWriter& out) {
  const bool name_ivars = options.ivar_names && !heap.shapes().empty();
  std::string joined;
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    for (ObjectIndex target : heap.references(i)) {
      out.number(i);
      out.number(target);
      EdgeName via;
      if (name_ivars) via = ivar_holding(heap, i, target);
      if (via.kind == EdgeName::Kind::kExact) {
        joined.clear();
        for (const auto& name : via.names) joined += (joined.empty() ? "" : ",") + name;
        out.text(joined);
      } else {
        out.null();
      }
      out.end_row();
    }
    // The class is marked by Ruby and followed by paths and dominators, but
    // the dump lists it apart from `references` (Heap::class_edge).
    if (const ObjectIndex klass = heap.class_edge(i); klass != kNoObject) {
      out.number(i);
      out.number(klass);
      out.text("class");
      out.end_row();
    }
  }
}

void write_classes(const Heap& heap, const ObjectKeys& keys, TableWriter& out) {
  const std::vector<ClassRow> rows = class_rows(heap, keys);
  const std::vector<ClassRetention> retention = class_retention(heap, keys);
  for (std::size_t k = 0; k < keys.names.size(); ++k) {
    const ClassRow& row = rows[k];
    out.text(keys.names[k]);
    if (row.one_class && row.klass != kNoObject) {
      out.number(row.klass);
      out.address(heap.address(row.klass));
    } else {
      out.null();
      out.null();
    }
    out.number(row.count);
    out.number(row.self_bytes);
    out.number(retention[k].count);
    out.number(retention[k].retained);
    out.end_row();
  }
}

void write_roots(const Heap& heap, TableWriter& out) {
  for (const RootCategory& category : heap.roots()) {
    for (ObjectIndex target : category.targets) {
      out.text(category.name);
      out.number(target);
      out.end_row();
    }
  }
}

void write_dominators(const Heap& heap, TableWriter& out) {
  const DominatorTree& tree = heap.dominators();
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    if (!tree.reachable(i)) continue;
    out.number(i);
    if (const ObjectIndex idom = tree.idom(i); idom != DominatorTree::kSuperRoot)
      out.number(idom);
    else
      out.null();
    out.number(tree.retained(i));
    out.end_row();
  }
}

}  // namespace

Result<std::vector<ExportedTable>> export_heap_tables(const Heap& heap, const std::string& outdir,
                                                      const ExportOptions& options) {
  std::error_code error;
  std::filesystem::create_directories(outdir, error);
  if (error || !std::filesystem::is_directory(outdir)) {
    return make_error(ErrorReason::kNotReadable,
                      "cannot create the directory " + outdir + ": " +
                          (error ? error.message() : std::string("a file has that name")));
  }
  // heap_reference needs neither the dominators nor the keys: a second
  // thread writes it while this one computes them and writes the rest.
  Result<ExportedTable> references = ExportedTable{};
  std::thread reference_writer([&] {
    try {
      references = write_table(outdir, "heap_reference", options, {"owner_id", "owned_id", "via"},
                               [&](TableWriter& out) { write_references(heap, options, out); });
    } catch (const std::exception& error) {
      references = make_error(ErrorReason::kNoAnswer, error.what());
    }
  });
  auto rest = [&]() -> Result<std::vector<ExportedTable>> {
    const ObjectKeys keys = object_keys(heap);
    std::vector<ExportedTable> tables;
    Result<ExportedTable> table =
        write_table(outdir, "heap_object", options,
                    {"id", "address", "type", "name", "class_id", "memsize", "file", "line",
                     "method", "generation", "root", "parent_id", "reachable", "retained"},
                    [&](TableWriter& out) { write_objects(heap, keys, out); });
    if (!table) return table.error();
    tables.push_back(std::move(*table));
    table = write_table(
        outdir, "heap_class", options,
        {"name", "class_id", "class_address", "count", "self_bytes", "reachable_count", "retained"},
        [&](TableWriter& out) { write_classes(heap, keys, out); });
    if (!table) return table.error();
    tables.push_back(std::move(*table));
    table = write_table(outdir, "heap_root", options, {"root", "object_id"},
                        [&](TableWriter& out) { write_roots(heap, out); });
    if (!table) return table.error();
    tables.push_back(std::move(*table));
    table = write_table(outdir, "heap_dominator", options, {"object_id", "idom_id", "retained"},
                        [&](TableWriter& out) { write_dominators(heap, out); });
    if (!table) return table.error();
    tables.push_back(std::move(*table));
    return tables;
  };
  Result<std::vector<ExportedTable>> tables = make_error(ErrorReason::kNoAnswer, "");
  try {
    tables = rest();
  } catch (...) {
    reference_writer.join();
    throw;
  }
  reference_writer.join();
  if (!tables) return tables.error();
  if (!references) return references.error();
  tables->insert(tables->begin() + 1, std::move(*references));
  return tables;
}

}  // namespace heapleak
