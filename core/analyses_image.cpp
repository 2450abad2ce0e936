#include "core/analyses_image.h"

#include <cstring>
#include <vector>

#include "core/analysis_cost.h"

namespace heapleak::image {
namespace {

// The `meta` section: what the file is bound to and the analyses' counts.
struct AnalysesMeta {
  std::uint64_t image_checksum;
  std::uint64_t objects;
  std::uint64_t kept;  // kRootPathsAnalysis | kDominatorsAnalysis
  std::uint64_t root_paths_reachable;
  std::uint64_t dominators_reachable;
  std::uint64_t unreachable_bytes;
  std::uint64_t reserved[2];
};
static_assert(sizeof(AnalysesMeta) == 64);

template <class T>
Part part(const char* name, const Column<T>& column) {
  return Part{name, column.data(), column.size() * sizeof(T)};
}

OpenedAnalyses problem(FileProblem kind, std::string why) {
  OpenedAnalyses out;
  out.problem = kind;
  out.why = std::move(why);
  return out;
}

// A view of section `name` as exactly `objects` values of T, or nothing.
template <class T>
std::optional<Column<T>> column_of(const MappedFile& file, const char* name,
                                   std::uint64_t objects) {
  const Section* s = file.find(name);
  if (s == nullptr || s->bytes != objects * sizeof(T)) return std::nullopt;
  return Column<T>::view(reinterpret_cast<const T*>(file.mapping->at(s->offset)), objects,
                         file.mapping);
}

bool read_meta(const MappedFile& file, AnalysesMeta& meta) {
  const Section* s = file.find("meta");
  if (s == nullptr || s->bytes != sizeof meta || !file.intact(*s)) return false;
  std::memcpy(&meta, file.mapping->at(s->offset), sizeof meta);
  return true;
}

}  // namespace

std::optional<std::string> write_analyses_image(const Heap& heap, std::uint64_t image_checksum,
                                                const std::string& path, unsigned& kept) {
  kept = kNoAnalysis;
  AnalysesMeta meta{};
  meta.image_checksum = image_checksum;
  meta.objects = heap.size();
  std::vector<Part> parts{{"meta", &meta, sizeof meta}};
  if (heap.has_root_paths()) {
    const RootPaths& paths = heap.root_paths();
    meta.root_paths_reachable = paths.reachable_count();
    parts.push_back(part("root_paths.parent", paths.parents()));
    kept |= kRootPathsAnalysis;
  }
  if (heap.has_dominators()) {
    const DominatorTree& tree = heap.dominators();
    meta.dominators_reachable = tree.reachable_count();
    meta.unreachable_bytes = tree.unreachable_bytes();
    parts.push_back(part("dominators.preorder", tree.preorder()));
    parts.push_back(part("dominators.idom", tree.idoms()));
    parts.push_back(part("dominators.retained", tree.retained_sizes()));
    kept |= kDominatorsAnalysis;
  }
  meta.kept = kept;
  if (kept == kNoAnalysis) return std::nullopt;
  Written written = write_image_file(path, kAnalysesMagic, kAnalysesVersion, 0, parts);
  if (written.error) kept = kNoAnalysis;
  return written.error;
}

OpenedAnalyses open_analyses_image(const std::string& path, std::uint64_t objects,
                                   std::uint64_t image_checksum) {
  MappedFile file = map_image_file(path, kAnalysesMagic, kAnalysesVersion);
  if (file.problem != FileProblem::kNone) return problem(file.problem, file.why);
  AnalysesMeta meta{};
  if (!read_meta(file, meta))
    return problem(FileProblem::kCorrupt, "checksum mismatch in its meta section");
  if (meta.image_checksum != image_checksum || meta.objects != objects) {
    OpenedAnalyses out =
        problem(FileProblem::kCorrupt, "computed for an earlier image of the dump");
    out.stale = true;
    return out;
  }
  // Every payload byte is checked once, here, before any of it is used.
  if (const Section* s = file.first_damaged())
    return problem(
        FileProblem::kCorrupt,
        "checksum mismatch in section " + std::string(s->name, strnlen(s->name, sizeof s->name)));
  OpenedAnalyses out;
  if (meta.kept & kRootPathsAnalysis) {
    auto parents = column_of<std::uint32_t>(file, "root_paths.parent", objects);
    if (!parents || meta.root_paths_reachable > objects)
      return problem(FileProblem::kCorrupt, "its root paths are misshapen");
    out.root_paths =
        std::make_unique<const RootPaths>(std::move(*parents), meta.root_paths_reachable);
  }
  if (meta.kept & kDominatorsAnalysis) {
    auto preorder = column_of<std::uint32_t>(file, "dominators.preorder", objects);
    auto idom = column_of<ObjectIndex>(file, "dominators.idom", objects);
    auto retained = column_of<std::uint64_t>(file, "dominators.retained", objects);
    if (!preorder || !idom || !retained || meta.dominators_reachable > objects)
      return problem(FileProblem::kCorrupt, "its dominator tree is misshapen");
    out.dominators = std::make_unique<const DominatorTree>(
        std::move(*preorder), std::move(*idom), std::move(*retained), meta.dominators_reachable,
        meta.unreachable_bytes);
  }
  out.kept = static_cast<unsigned>(meta.kept) & (kRootPathsAnalysis | kDominatorsAnalysis);
  out.problem = FileProblem::kNone;
  return out;
}

std::optional<unsigned> peek_analyses_image(const std::string& path) {
  MappedFile file = map_image_file(path, kAnalysesMagic, kAnalysesVersion);
  AnalysesMeta meta{};
  if (file.problem != FileProblem::kNone || !read_meta(file, meta)) return std::nullopt;
  return static_cast<unsigned>(meta.kept) & (kRootPathsAnalysis | kDominatorsAnalysis);
}

}  // namespace heapleak::image
