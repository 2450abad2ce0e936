#include "core/images/analyses_image.h"

#include <cstring>
#include <vector>

#include "core/heap/analysis_cost.h"

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

// Bytes [begin, end) of a section of uint32_t values: whether `ok(k, value)` holds for each.
template <class Ok>
ValueCheck each(Ok ok) {
  return [ok](const char* section, std::uint64_t begin, std::uint64_t end) {
    const auto* values = reinterpret_cast<const std::uint32_t*>(section);
    bool all = true;  // no early exit: the loop vectorizes where it can
    for (std::uint64_t k = begin / 4, last = end / 4; k < last; ++k) all &= ok(k, values[k]);
    return all;
  };
}

// The value checks of the sections, against the counts of the meta section.
ValueChecks value_checks(const MappedFile& file, const AnalysesMeta& meta,
                         std::size_t root_categories) {
  const std::uint64_t objects = meta.objects;
  ValueChecks checks;
  checks.emplace_back(
      "root_paths.parent", each([=](std::uint64_t, std::uint32_t p) {
        return p < objects || p == RootPaths::kUnreached ||
               (p >= RootPaths::kRootBase && p - RootPaths::kRootBase < root_categories);
      }));
  const std::uint64_t reachable = meta.dominators_reachable;
  constexpr std::uint32_t kUnvisited = UINT32_MAX;
  checks.emplace_back("dominators.preorder", each([=](std::uint64_t, std::uint32_t number) {
                        return (number >= 1 && number <= reachable) || number == kUnvisited;
                      }));
  // An idom numbered before its object: walks up the tree always end.
  const Section* preorder_section = file.find("dominators.preorder");
  if (preorder_section != nullptr && preorder_section->bytes == objects * 4) {
    const auto* preorder =
        reinterpret_cast<const std::uint32_t*>(file.mapping->at(preorder_section->offset));
    checks.emplace_back("dominators.idom", each([=](std::uint64_t k, ObjectIndex idom) {
                          if (idom == kNoObject) return preorder[k] == kUnvisited;
                          if (preorder[k] == kUnvisited) return false;
                          return idom == DominatorTree::kSuperRoot ||
                                 (idom < objects && preorder[idom] < preorder[k]);
                        }));
  }
  return checks;
}

// Whether following parents from any object ends at a root or the
// unreached mark, never in a cycle nor at an unreached object: one walk per
// chain, each object passed once (a byte of state per object).
bool parents_end_at_roots(const Column<std::uint32_t>& parents) {
  enum : std::uint8_t { kUnknown, kOnChain, kEnds };
  std::vector<std::uint8_t> state(parents.size(), kUnknown);
  for (std::size_t start = 0; start < parents.size(); ++start) {
    std::size_t x = start;
    while (state[x] == kUnknown && parents[x] < parents.size()) {
      state[x] = kOnChain;
      x = parents[x];
    }
    if (state[x] == kOnChain) return false;  // back on this chain: a cycle
    // x ends the chain: a root target, or an object known to end at one.
    // An unreached object is no parent.
    if (x != start && parents[x] == RootPaths::kUnreached) return false;
    for (std::size_t y = start; state[y] == kOnChain; y = parents[y]) state[y] = kEnds;
    state[x] = kEnds;
  }
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
                                   std::size_t root_categories, std::uint64_t image_checksum) {
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
  // Every payload byte is checked once, here, before any of it is used, and
  // its values in the same pass.
  if (meta.root_paths_reachable > objects || meta.dominators_reachable > objects)
    return problem(FileProblem::kCorrupt, "its counts exceed the heap's objects");
  if (Damage damage = file.first_damaged(nullptr, value_checks(file, meta, root_categories)))
    return problem(FileProblem::kCorrupt, damage.why());
  OpenedAnalyses out;
  if (meta.kept & kRootPathsAnalysis) {
    auto parents = column_of<std::uint32_t>(file, "root_paths.parent", objects);
    if (!parents) return problem(FileProblem::kCorrupt, "its root paths are misshapen");
    if (!parents_end_at_roots(*parents))
      return problem(FileProblem::kCorrupt, "its root paths do not all lead to a root");
    out.root_paths =
        std::make_unique<const RootPaths>(std::move(*parents), meta.root_paths_reachable);
  }
  if (meta.kept & kDominatorsAnalysis) {
    auto preorder = column_of<std::uint32_t>(file, "dominators.preorder", objects);
    auto idom = column_of<ObjectIndex>(file, "dominators.idom", objects);
    auto retained = column_of<std::uint64_t>(file, "dominators.retained", objects);
    if (!preorder || !idom || !retained)
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
