// What is probably not a leak, and why: the reasons a leak cluster is put
// apart from the real leaks (finalizer tables, VM internals and inline
// caches, the allocation tracer, containers that stopped growing,
// unreachable leftovers, words on the machine stack, heapleak-capture's own
// objects), with their wire names and one-line explanations.
#pragma once

#include <string_view>

namespace heapleak {

enum class NoiseReason {
  kNone,
  kVmInternal,
  kFinalizerTable,
  kAllocationTracer,
  kInlineCache,
  kBounded,
  kUnreachable,
  kSharedString,
  kCodeLoaded,
  kTransientHolder,
  kMachineStack,
  kCaptureOwn,
};

std::string_view noise_reason_name(NoiseReason reason);  // camelCase wire name
std::string_view noise_reason_why(NoiseReason reason);   // one sentence for people

}  // namespace heapleak
