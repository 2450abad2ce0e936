#include "core/explain/explain_pipeline.h"

#include <memory>
#include <optional>
#include <utility>

#include "core/diagnosis/leak_clusters.h"
#include "core/diagnosis/leak_folding.h"
#include "core/diagnosis/untraced_warning.h"
#include "core/series/series_growth.h"

namespace heapleak {

ExplainOutcome explain_leaks(ExplainInput input) {
  const std::size_t count = input.dumps.size();
  const DiffRoles roles = diff_roles(count);
  const Heap& target = *input.dumps[roles.target];
  // Every dump but B as what it says of B's objects: given, or read off
  // its heap here.
  std::vector<std::unique_ptr<OtherDump>> made(count);
  std::vector<const OtherDump*> others(count, nullptr);
  for (std::size_t k = 0; k < count; ++k) {
    if (k == roles.target) continue;
    if (k < input.others.size() && input.others[k]) {
      others[k] = input.others[k];
    } else {
      made[k] = std::make_unique<OtherDump>(target, *input.dumps[k]);
      others[k] = made[k].get();
    }
  }
  const DiffDumps dumps{*others[roles.baseline], target,
                        roles.later ? others[*roles.later] : nullptr};
  // Plain references, not a structured binding: the lambdas below capture
  // them, which clang 14 (the fuzz build's) does not allow of bindings.
  const OtherDump& baseline = dumps.baseline;
  const OtherDump* const later = dumps.later;
  const bool series = count > 3;
  ExplainOutcome out;
  PassRunner runner("explain", std::move(input.skipped));
  const auto run = [&runner](const char* name, const std::function<void()>& pass) {
    runner.run(name, pass);
  };
  LeakDiff& diff = out.diff;
  RowsInProgress rows;

  // The diff: B's objects new since A and alive in C. Explain regroups every
  // leaked object into rows, so the diff's groups keep no samples.
  if (input.diff) {
    diff = std::move(*input.diff);
    for (const char* name : {"identity match", "leaked objects", "grown objects", "diff groups"})
      runner.pass_over(name);
  } else {
    IdentityMatch match;
    // First: every pass below reads who is who; it also decides whether
    // the dumps look compacted, which changes how the leaked are chosen.
    run("identity match", [&] { match = match_identities(baseline, target, later, diff); });
    // Needs the match both ways; finds objects moved between B and C.
    run("leaked objects", [&] { select_leaked(baseline, target, later, match, diff); });
    // Needs the match too, then it is freed: old objects that grew in place.
    run("grown objects", [&] { find_grown(baseline, target, later, match, diff); });
    match = {};
    run("diff groups", [&] { group_leaked(target, {input.group_by, 0}, diff); });
  }
  // Whether the dumps are one series: after the diff, whose compaction
  // finding it replaces when the cause is another process.
  run("series check", [&] {
    std::optional<DumpSummary> own;
    if (!input.target_summary) own = summary_of(target);
    std::vector<const DumpSummary*> summaries;
    for (std::size_t k = 0; k < count; ++k) {
      summaries.push_back(k != roles.target      ? &others[k]->summary()
                          : input.target_summary ? input.target_summary
                                                 : &*own);
    }
    out.series = series ? check_series_of(summaries, diff.compacted)
                        : check_series(*summaries[0], *summaries[1], later ? summaries[2] : nullptr,
                                       diff.compacted);
    add_series_warnings(out.series, diff.warnings);
  });
  run("untraced warning", [&] { warn_if_untraced(diff, target, input.group_by); });

  // The rows. Nothing new and nothing grown: no row, and no dominator tree
  // or root paths to compute for them (nor when only the diff was asked).
  if (!input.rows || (diff.leaked.empty() && diff.grown.empty())) {
    out.times = runner.times();
    return out;
  }
  // Holders on B's shortest root paths first; then corrected with C (a
  // holder gone by C held only for a while), then with A (a holder born
  // between A and B that grows on is the leak itself): both move objects
  // between holders, so they run before the rows are made.
  run("holders", [&] { find_holders(dumps, diff, rows); });
  run("later holders", [&] { apply_later_holders(dumps, diff, rows); });
  run("born holders", [&] { apply_born_holders(dumps, diff, rows); });
  run("rows by holder", [&] { group_by_holder(dumps, diff, rows); });
  // Sizes before growth: a rebuilt entry is judged by the bytes retained.
  run("sizes", [&] { measure_rows(dumps, diff, rows); });
  run("paths", [&] { place_rows(dumps, rows); });
  run("growth", [&] { read_growth(dumps, diff, rows); });
  // After growth: only a row whose entry was rebuilt is read again.
  run("replaced entries", [&] { read_replaced_entries(dumps, rows); });
  // Names before verdicts: a shape verdict may relabel the row (leak_shape.h).
  run("names", [&] { name_rows(dumps, input.group_by, rows); });
  // The capture gem's own rows, then what a row holds, then where it sits.
  run("verdicts", [&] { judge_rows(dumps, rows); });
  // After the verdicts: a grown object that already holds a row adds none.
  run("grown rows", [&] { add_grown_rows(dumps, diff, rows); });
  // Grown rows before folding: one leak's holders fold whatever made them.
  run("folding", [&] {
    fold_rows(target, rows.out.leaks, input.group_by);
    fold_rows(target, rows.out.noise, input.group_by);
  });
  run("ranking", [&] { rank_rows(rows); });
  // After folding and ranking: a series reads each folded row in every dump,
  // then moves the rows that grew in every interval first.
  if (series) {
    run("series growth", [&] {
      std::vector<const Counterparts*> sides;
      for (const OtherDump* other : others) sides.push_back(other ? &other->of_target() : nullptr);
      add_series_growth(target, sides, rows.out);
    });
  }
  out.rows = std::move(rows.out);
  out.times = runner.times();
  return out;
}

LeakClusters cluster_leaks(const Heap& baseline, const Heap& target, const Heap* later,
                           const LeakDiff& diff, GroupBy group_by) {
  ExplainInput input;
  input.dumps = {&baseline, &target};
  if (later) input.dumps.push_back(later);
  input.group_by = group_by;
  input.diff = diff;
  input.skipped = {"series check", "untraced warning"};
  return explain_leaks(std::move(input)).rows;
}

}  // namespace heapleak
