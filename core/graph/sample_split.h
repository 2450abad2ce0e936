// Do `root`'s samples sit in one container or several? Each sample's
// containers (Ruby-visible objects on its shortest root path: Arrays,
// Hashes, objects, classes; VM internals and strings passed over) are cut
// where all samples' paths stop agreeing. When that cut leaves at least two
// groups and some group holds two or more samples, the samples are split:
// each group is answered with its own container (where its paths meet). When
// every sample sits alone under the meeting point, that point accumulates
// them all (one Array of entries, one Hash of users), and nothing is split.
#pragma once

#include <span>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak {

struct SampleGroup {
  ObjectIndex container = kNoObject;  // where the group's paths meet; kNoObject: none
  std::vector<ObjectIndex> samples;
};

struct SampleSplit {
  bool split = false;
  std::vector<SampleGroup> groups;  // only when split; biggest first
};

// Needs references and GC roots; unreachable samples form a group of their own.
SampleSplit split_samples(const Heap& heap, std::span<const ObjectIndex> samples);

}  // namespace heapleak
