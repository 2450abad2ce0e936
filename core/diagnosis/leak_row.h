// One row of the leak table and its parts: the holder, how Ruby reaches it,
// its growth, its leaked objects by class and site, and why a row is noise.
// The types only, apart from core/diagnosis/leak_clusters.h that fills them,
// so the diagnoses it calls (leak_shape, leak_folding, series_growth,
// capture_own) read and amend rows without including it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/diagnosis/growth_verdict.h"
#include "core/diagnosis/leak_noise.h"
#include "core/diagnosis/ownership.h"
#include "core/graph/root_paths.h"
#include "core/heap/heap.h"
#include "core/heap/ivar_names.h"

namespace heapleak {

// How Ruby code reaches the holder: the nearest named class or module, a
// thread, a global, or only the GC root category.
struct Reach {
  std::string kind;  // constant|class|module|global|thread|root|object
  std::string name;
  std::string root;  // GC root category of the path
  std::string ivar;  // the class's ivar on the path (`@cache`), when the dump names it exactly
};

struct SiteCount {
  std::string site;
  std::uint64_t count = 0;
};

struct ClusterClass {
  std::string key;
  std::string name;
  std::uint64_t count = 0;
  std::uint64_t memsize = 0;
  std::vector<SiteCount> sites;  // traced dumps only, most first
};

struct LeakCluster {
  std::string key;        // human label: holder and how Ruby reaches it
  std::string signature;  // 16 hex digits, no addresses in its input
  ObjectIndex holder = kNoObject;
  std::vector<ObjectIndex> hops;  // VM internals between the holder and the leaked objects
  Reach reach;
  Growth growth;
  std::vector<ObjectIndex> objects;  // the leaked objects, ascending address
  std::uint64_t count = 0, memsize = 0, retained = 0;
  // Holders of this one leak (one signature) folded into the row: `holder`
  // is the one retaining most; count, memsize, retained are their totals.
  std::uint64_t instances = 1;
  // Rows folded in because this row's holder keeps their holders alive
  // through a block (core/diagnosis/leak_folding.h): each one's label and holders.
  std::vector<std::pair<std::string, std::uint64_t>> grows_with;
  // An old object that grew in place (diff.grown): the holder is the leak,
  // `objects` is empty, `retained` the bytes it gained from A to B.
  bool grown_in_place = false;
  std::vector<ClusterClass> classes;  // biggest first
  std::vector<Owner> owners;
  RootPath path;                        // from a GC root to the holder (empty when holder is null)
  std::vector<EdgeName> vias;           // how each path object is held by the one before it
  std::vector<std::string> path_names;  // "ROOT cat", then each path object (naming.h path_names)
  NoiseReason noise = NoiseReason::kNone;
  std::string block;  // where the Procs it holds were defined (leak_shape.h block_of), or ""
  // explain over N >= 4 dumps (series_growth.h): growth.field's value and
  // the growth object's own bytes in each dump D1..DN, nullopt where that
  // container is not there; empty with fewer dumps.
  std::vector<std::optional<std::uint64_t>> series, series_bytes;
};

struct LeakClusters {
  std::vector<LeakCluster> leaks;  // by retained, most first
  std::vector<LeakCluster> noise;  // by retained, most first
};

}  // namespace heapleak
