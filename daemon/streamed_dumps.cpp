#include "daemon/streamed_dumps.h"

#include <algorithm>
#include <filesystem>
#include <stop_token>

#include "daemon/analysis_admission.h"
#include "daemon/files_progress.h"
#include "daemon/path_heaps.h"
#include "daemon/rpc_errors.h"
#include "engine/diff_streams.h"

namespace heapleak::daemon {
namespace fs = std::filesystem;

bool streams_against_target(DaemonContext& ctx, const std::string& path,
                            const std::string& target_path) {
  // A heap of it in the store is used, or reloaded if its file changed (as
  // any path-named heap): the user loaded it, or a pass needed it.
  if (path == target_path || ctx.store.find_by_path(path)) return false;
  return !ctx.cache.has_image(path);
}

std::shared_ptr<const Heap> load_streamed(DaemonContext& ctx, const std::string& path,
                                          const FileIdentity& read,
                                          const protocol::RequestContext& request, LoadMode mode) {
  const HeapEntry entry = heap_for_path(ctx, path, request, mode);
  if (!(entry.heap->report().identity == read)) {
    throw protocol::RpcException(protocol::domain_error(
        "invalidArgument", path + " changed while this request read it: ask again"));
  }
  return entry.heap;
}

std::vector<std::shared_ptr<const OtherDump>> stream_against(
    DaemonContext& ctx, const HeapEntry& target, const std::vector<std::string>& paths,
    const protocol::RequestContext& request) {
  std::vector<std::shared_ptr<const Counterparts>> said(paths.size());
  std::vector<std::string> to_read(paths.size());  // those not kept
  std::vector<std::string> why(paths.size());
  for (std::size_t k = 0; k < paths.size(); ++k) {
    if (paths[k].empty()) continue;
    require_regular_file(paths[k]);  // a FIFO would hold the stream forever
    FileIdentity now;
    std::optional<FileIdentity> changed_from;
    if (file_identity(paths[k], now))
      said[k] = ctx.kept_counterparts->find(*target.heap, paths[k], now, &changed_from);
    if (said[k]) continue;
    to_read[k] = paths[k];
    if (changed_from) {
      why[k] = what_changed(*changed_from, now);
      // Logged as a reload is: an answer from another file than the last one's.
      ctx.logger->error(paths[k] + " changed since it was read against " + target.id + " (" +
                        why[k] + "): reading it again");
    }
  }

  const std::string names = file_names(to_read);
  std::vector<Result<Counterparts>> results;
  if (!names.empty()) {
    const StreamAdmission admitted(
        ctx, target, names,
        std::count_if(to_read.begin(), to_read.end(), [](const auto& p) { return !p.empty(); }));
    // Read beside B's analyses: a stream of a few GB takes seconds.
    FilesProgress progress(request.progress, "Reading " + names + " against " + target.name,
                           to_read.size());
    engine::DiffStreams reading(
        *target.heap, to_read, [&progress](std::size_t k, std::uint64_t done, std::uint64_t total) {
          progress.report(k, done, total);
        });
    std::stop_callback on_cancel(request.stop, [&reading] { reading.stop(); });
    results = reading.join();
  }
  if (request.stop.stop_requested()) throw protocol::RpcException(protocol::cancelled_error());
  for (std::size_t k = 0; k < paths.size(); ++k) {
    if (to_read[k].empty()) continue;
    if (!results[k]) throw protocol::RpcException(to_rpc_error(results[k].error()));
    said[k] = std::make_shared<const Counterparts>(std::move(*results[k]));
    for (const auto& heap : ctx.kept_counterparts->keep(target.heap, paths[k], said[k]))
      ctx.store.charge_beside(*heap, ctx.kept_counterparts->bytes_for(*heap));
    const std::string name = fs::path(paths[k]).filename().string();
    note_streamed(name, paths[k], why[k]);
    ctx.logger->info("read " + paths[k] + " against " + target.id + " without loading it");
  }

  std::vector<std::shared_ptr<const OtherDump>> out(paths.size());
  for (std::size_t k = 0; k < paths.size(); ++k) {
    if (!said[k]) continue;
    // The rare pass that needs more than the stream (a compaction's count
    // by content, objects moved between B and C, an entry replaced by a
    // copy) has the store load the dump, identity-only, as a held A or C is.
    const std::string& path = paths[k];
    const FileIdentity read = said[k]->dump.report.identity;
    // (`request` copied: the caller's may be a part of its progress, gone by then.)
    out[k] = std::make_shared<OtherDump>(said[k], [&ctx, request, path, read] {
      return load_streamed(ctx, path, read, request, LoadMode::kIdentityOnly);
    });
  }
  return out;
}

}  // namespace heapleak::daemon
