#include "engine/memory_evidence.h"

#include <algorithm>

#include "core/diagnosis/leak_diff.h"
#include "core/reading/dump_manifest.h"
#include "core/series/memory_accounting.h"
#include "core/series/row_native.h"

namespace heapleak::engine {
namespace {

// Dumps are named as explain's files are: A B C, or D1..DN for a series.
std::string dump_name(std::size_t k, std::size_t dumps) {
  if (dumps > 3) return "D" + std::to_string(k + 1);
  return std::string(1, static_cast<char>('A' + k));
}

std::int64_t signed_bytes(std::uint64_t bytes) {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(bytes, INT64_MAX));
}

}  // namespace

results::MemoryEvidence memory_evidence(const DiffSet& dumps, const LeakClusters& rows,
                                        std::vector<std::string>& warnings) {
  results::MemoryEvidence evidence;
  std::vector<MemoryDump> memory;
  for (std::size_t k = 0; k < dumps.size(); ++k) {
    const DumpSummary& summary = dumps.summary(k);
    MemoryDump dump{dump_name(k, dumps.size()), HeapFigures{summary.objects, summary.bytes},
                    std::nullopt};
    if (auto manifest = read_manifest_for(summary.report.path)) {
      warnings.insert(warnings.end(), manifest->warnings.begin(), manifest->warnings.end());
      dump.memory = std::move(manifest->memory);
    }
    evidence.rss.push_back(dump.memory ? dump.memory->rss : std::nullopt);
    memory.push_back(std::move(dump));
  }
  evidence.accounting = account_memory(memory);
  if (dumps.size() < 2) return evidence;

  // The leak rows are objects new between the diff's A and B: a part of the
  // Ruby objects' growth over that span, not over the whole series.
  const DiffRoles roles = diff_roles(dumps.size());
  evidence.rows_from = memory[roles.baseline].name;
  evidence.rows_to = memory[roles.target].name;
  evidence.rows_span_growth = signed_bytes(memory[roles.target].heap.bytes) -
                              signed_bytes(memory[roles.baseline].heap.bytes);
  const Heap& target = dumps.target();
  for (std::size_t k = 0; k < rows.leaks.size(); ++k) {
    const LeakCluster& row = rows.leaks[k];
    evidence.leak_rows_bytes += row.memsize;
    RowNative native = row_native(target, row.objects);
    if (native.data_objects > 0)
      evidence.native_rows.push_back({k + 1, row.key, std::move(native)});
  }
  std::stable_sort(evidence.native_rows.begin(), evidence.native_rows.end(),
                   [](const results::NativeRow& a, const results::NativeRow& b) {
                     return a.native.data_objects > b.native.data_objects;
                   });
  return evidence;
}

}  // namespace heapleak::engine
