#include "clients/cli/diff_loads.h"

#include <iostream>
#include <stdexcept>

#include "clients/cli/cli_output.h"
#include "core/diagnosis/leak_diff.h"
#include "core/reading/byte_source.h"
#include "engine/diff_streams.h"
#include "engine/load_plan.h"

namespace heapleak::cli {
namespace {

// The heap of a streamed dump, for the pass that needs it, identity-only as
// a held A or C is (objects moved between B and C that need C's references
// have the engine read it again: engine/later_references.h). Refused when
// the file changed since it streamed.
OtherDump::Loader heap_loader(const std::string& path, FileIdentity streamed) {
  return [path, streamed]() -> std::shared_ptr<const Heap> {
    int exit_code = kExitOk;
    std::vector<std::string> errors;
    auto heap = load_alone(path, LoadMode::kIdentityOnly, exit_code, &errors, false);
    if (!heap)
      throw std::runtime_error(errors.empty() ? path + ": could not be read" : errors.front());
    if (!(heap->report().identity == streamed))
      throw std::runtime_error(path + ": the file changed since it was read");
    return heap;
  };
}

}  // namespace

const Heap& LoadedDiff::target() const { return *heaps[diff_roles(heaps.size()).target]; }

engine::DiffSet LoadedDiff::set() const {
  std::vector<const Heap*> held;
  for (const auto& heap : heaps) held.push_back(heap.get());
  return engine::DiffSet(std::move(held), streamed);
}

LoadedDiff load_leak_diff(const std::vector<std::string>& paths, int& exit_code,
                          std::vector<std::string>* errors, bool analyses) {
  LoadedDiff out;
  const std::size_t count = paths.size();
  const DiffRoles roles = diff_roles(count);
  out.heaps.resize(count);
  out.streamed.resize(count);
  // Errors in the order of the paths, the first printed (as load_planned
  // does): a dump that cannot be opened is told before B loads.
  const auto fail = [&](const Error& error) {
    if (errors) errors->push_back(error.message);
    if (exit_code == kExitOk) exit_code = report_error(error);
  };
  for (const std::string& path : paths)
    if (auto source = open_byte_source(path); !source) fail(source.error());
  if (exit_code != kExitOk) return out;
  // B first, alone: the load splits a large plain dump across the cores.
  // (Broken lines are told below, in the order of the paths.)
  out.heaps[roles.target] =
      load_alone(paths[roles.target], LoadMode::kFull, exit_code, errors, false);
  if (!out.heaps[roles.target]) return out;
  const Heap& target = *out.heaps[roles.target];
  // The others: mapped from their images, else streamed against B, two
  // at a time (engine/diff_streams.h).
  std::vector<std::string> streams(count);
  for (std::size_t k = 0; k < count; ++k) {
    if (k == roles.target) continue;
    if (cli_cache().has_image(paths[k])) {  // cheaper than a stream
      out.heaps[k] = load_alone(paths[k], LoadMode::kIdentityOnly, exit_code, errors, false);
      if (!out.heaps[k]) return out;
    } else {
      streams[k] = paths[k];
    }
  }
  // B's dominator tree first, alone: its search arrays (28 bytes per
  // object) are the analyses' peak, and the streams' blocks and flags next
  // to them made explain's peak 1.20x `info B`'s on syn1700 (658 MB against
  // 550; 620 with the tree first). Its root paths then run beside the streams.
  try {
    if (analyses && target.report().edges_built) target.dominators();
  } catch (...) {
    // Left for the command: it computes the same again and reports the error.
  }
  engine::DiffStreams reading(target, streams);
  try {
    if (analyses) engine::analyse_target(target);
  } catch (...) {
    // As above.
  }
  std::vector<Result<Counterparts>> results = reading.join();
  // Broken lines told in the order of the paths, loaded or streamed.
  for (std::size_t k = 0; k < count; ++k) {
    if (out.heaps[k]) warn_about_load(*out.heaps[k]);
    if (results[k]) warn_about_load(results[k]->dump.report);
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (streams[k].empty()) continue;
    if (!results[k]) {
      fail(results[k].error());
      continue;
    }
    write_image_later(paths[k]);  // the next run maps it
    const FileIdentity identity = results[k]->dump.report.identity;
    out.streamed[k] =
        std::make_shared<OtherDump>(std::move(*results[k]), heap_loader(paths[k], identity));
  }
  out.ok = exit_code == kExitOk;
  return out;
}

}  // namespace heapleak::cli
