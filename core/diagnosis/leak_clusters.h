// One row per leak, built pass by pass: the diff's leaked objects clustered
// by their accumulation point. For each leaked object, walk up its shortest
// path from the GC roots to the first object that is not leaked: that
// pre-existing object is the holder (a VM internal is passed over for the
// first Ruby-visible object above it). Each row gets how Ruby reaches the
// holder, the holder's growth A -> B -> C, its leaked objects by class and
// site, the bytes it retains (counted once across rows) and a signature
// stable across runs; what is probably not a leak goes apart, with a reason.
// The passes run in the order core/explain/explain_pipeline.cpp lists, which says why.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/base/column.h"
#include "core/diagnosis/cluster_classes.h"
#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/leak_row.h"
#include "core/graph/root_paths.h"
#include "core/heap/heap.h"
#include "core/heap/naming.h"
#include "core/heap/object_key.h"

namespace heapleak {

// The three dumps a diagnosis reads: `target` (B) with references; A and C
// as what they say of B's objects, their heaps read only by the passes that
// need more (core/diagnosis/other_dump.h); `later` may be null (a 2-dump diff).
struct DiffDumps {
  const OtherDump& baseline;
  const Heap& target;
  const OtherDump* later = nullptr;
};

// The rows while the passes build them.
struct RowsInProgress {
  // Per object of B, so Columns: huge pages where the kernel has them
  // (core/base/huge_pages.h), not 4 KiB faults, after a first touch.
  Column<char> leaked;            // by object of B: new in B and alive in C
  Column<ObjectIndex> holder_of;  // by object of B: its holder, or a mark (until grouped)
  // By anchor (the holder, or a mark) and first VM hop: two VM holders
  // passed over for the same visible object are one row.
  using Anchor = std::pair<ObjectIndex, ObjectIndex>;
  std::map<Anchor, LeakCluster> rows;
  std::map<Anchor, std::string> holder_names;  // the holder's name, "" without one
  EdgeNameMemo via_memo;                       // the rows' paths share their first hops
  LeakClusters out;                            // the rows once judged
};

// The passes, in the pipeline's order (each comment there says why there).
// Each leaked object's holder: the first object not leaked above it on its
// shortest root path, or a mark (reached from a root, not reachable).
void find_holders(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows);
// A holder in B that is gone by C held its objects only for a while: they
// move up to a holder alive in C, or are marked held in B only.
void apply_later_holders(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows);
// A container made between A and B that grows on from B to C under a holder
// that does not is the leak's holder itself (core/diagnosis/born_holders.h).
void apply_born_holders(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows);
// One row per holder (or root category, or unreachable), objects ascending.
void group_by_holder(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows);
// Each row's count, bytes, retained bytes (counted once across rows) and owners.
void measure_rows(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows);
// How Ruby reaches each row's holder: path, vias, reach, path names.
void place_rows(const DiffDumps& dumps, RowsInProgress& rows);
// Each row's growth A -> B -> C, where the references were gained.
void read_growth(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows);
// A holder that replaces its container by a new one: the growth is read on
// the container found again in A and C (core/diagnosis/replaced_entries.h).
void read_replaced_entries(const DiffDumps& dumps, RowsInProgress& rows);
// Each row's classes, label, signature and the block that made its Procs.
void name_rows(const DiffDumps& dumps, GroupBy group_by, RowsInProgress& rows);
// Leak or noise, and why: the capture gem's own objects, then what the row
// holds (core/diagnosis/leak_shape.h), then where it sits (core/diagnosis/leak_noise.h).
void judge_rows(const DiffDumps& dumps, RowsInProgress& rows);
// Old objects that grew in place (diff.grown) are leaks with no new objects:
// a row each, unless they already hold a row.
void add_grown_rows(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows);
// Both lists by retained bytes, most first.
void rank_rows(RowsInProgress& rows);

}  // namespace heapleak
