// What a leak cluster holds, decided before where it sits: a cluster under a
// VM object (the main Ractor, the finalizer table) or a class is noise only
// when it holds nothing of the program's or its holder stopped growing.
// Recognises Threads that never finished, objects kept alive by their own
// finalizer, classes or methods defined at run time into a growing module,
// and modules prepended or included into a class at run time (its ancestor
// chain keeps growing), and names each row in Ruby's words; also the block
// that defined the Procs a row holds.
#pragma once

#include <optional>
#include <string>

#include "core/diagnosis/counterparts.h"
#include "core/diagnosis/leak_row.h"
#include "core/heap/heap.h"

namespace heapleak {

struct ShapeVerdict {
  NoiseReason noise = NoiseReason::kNone;  // kNone: a leak
  std::string label;                       // the row's key, empty to keep the holder's
  std::optional<Growth> growth;            // what grows, when not the holder's own size
};

// The verdict for the shapes above (with `baseline`/`later` for the growth of
// the containers a holder gained); nullopt when the cluster is none of them
// and the general rules decide.
std::optional<ShapeVerdict> judge_shape(const Counterparts& baseline, const Heap& target,
                                        const Counterparts* later, const LeakCluster& cluster);

// "block in initialize (/app/upload.rb)": where the block of the row's holder
// (a Proc) or of the leaked Procs nearest the holder was defined (the
// commonest of the first 8); "" without Procs.
std::string block_of(const Heap& target, const LeakCluster& cluster);

}  // namespace heapleak
