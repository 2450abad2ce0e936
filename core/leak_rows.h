// explain's rows: what one row per leak says (its holder, how Ruby reaches
// it, its growth A -> B -> C, its objects by class and site, the bytes it
// retains, why it is noise when it is) and the list of leak and noise rows.
// Every pass of core/explain_pipeline.cpp reads or fills these; the types
// sit apart so that a pass includes them and not the pipeline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/heap.h"
#include "core/ivar_names.h"
#include "core/leak_noise.h"
#include "core/ownership.h"
#include "core/root_paths.h"

namespace heapleak {

// How Ruby code reaches the holder: the nearest named class or module, a
// thread, a global, or only the GC root category.
struct Reach {
  std::string kind;  // constant|class|module|global|thread|root|object
  std::string name;
  std::string root;  // GC root category of the path
  std::string ivar;  // the class's ivar on the path (`@cache`), when the dump names it exactly
};

// Array length / Hash size (else the number of references) of the holder in
// A, B, C; of the last VM hop under the holder when there are hops (the
// object whose references actually gained the leaked objects).
struct Growth {
  std::string field;  // length|size|references
  std::optional<std::uint64_t> baseline, target, later;
  bool drops = false;    // some of its entries in B are gone by C: it evicts (growth_verdict.h)
  bool rebuilt = false;  // its entry holding the leak was replaced by a copy: size says nothing
  bool stack = false;    // a Thread or Fiber: its references include its stack (growth_verdict.h)
  // Read on the rebuilt entry instead (core/replaced_entries.h): a container the holder
  // replaces by a new one between dumps, whose length or size can be read in each.
  bool replaced = false;
  std::uint64_t dropped = 0;  // how many of its references in B are gone by C (when it grew)
  // The holder itself was made between A and B (core/born_holders.h): no size in A.
  bool born = false;
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
  // through a block (core/leak_folding.h): each one's label and holders.
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
