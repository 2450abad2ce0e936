// The analyses of a cached heap (root paths, dominator tree) kept on disk in
// a file next to its image, in the image's container (core/images/image_file.h), so
// the next process maps them instead of computing them. The file is bound to
// the exact image it was computed from (the image header's checksum) and to
// its object count: a rebuilt or different image never meets stale analyses.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/graph/dominators.h"
#include "core/graph/root_paths.h"
#include "core/heap/heap.h"
#include "core/images/image_file.h"

namespace heapleak::image {

inline constexpr char kAnalysesMagic[8] = {'H', 'L', 'A', 'N', 'A', 'L', 'Y', '\n'};
// Bump on any change of the sections below or of what the analyses mean
// (a new root-path rule, another dominator root), so older files are ignored.
inline constexpr std::uint32_t kAnalysesVersion =
    3;  // 2: the class is an edge (Heap::class_edge), 3: root paths from the machine stack last

// Writes the analyses `heap` holds now (root paths and/or dominator tree,
// computed or mapped) to `path`, bound to the image whose table checksum is
// `image_checksum`. `kept` receives what was written (core/heap/analysis_cost.h's
// bits). Nothing on success (or when there is nothing to write), else why not.
std::optional<std::string> write_analyses_image(const Heap& heap, std::uint64_t image_checksum,
                                                const std::string& path, unsigned& kept);

struct OpenedAnalyses {
  FileProblem problem = FileProblem::kMissing;
  bool stale = false;  // well formed, but bound to another image: problem is kCorrupt
  std::string why;     // for people, when problem is not kNone
  std::unique_ptr<const RootPaths> root_paths;  // mapped views; either may be absent
  std::unique_ptr<const DominatorTree> dominators;
  unsigned kept = 0;  // which of the two the file holds
};

// Maps the analyses at `path` for a heap of `objects` objects and
// `root_categories` ROOT categories mapped from the image with
// `image_checksum`; every section is checked before it is used: checksums,
// and the values the walks follow (parents and idoms name objects or known
// codes, a root category exists, preorder numbers are in range, every idom
// comes before its object in preorder and the root paths have no cycle), so
// a forged file cannot send a walk out of bounds or around forever.
OpenedAnalyses open_analyses_image(const std::string& path, std::uint64_t objects,
                                   std::size_t root_categories, std::uint64_t image_checksum);

// What `cache list` shows: which analyses a file holds (its meta section only).
std::optional<unsigned> peek_analyses_image(const std::string& path);

}  // namespace heapleak::image
