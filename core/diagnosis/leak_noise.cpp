#include "core/diagnosis/leak_noise.h"

namespace heapleak {

std::string_view noise_reason_name(NoiseReason reason) {
  switch (reason) {
    case NoiseReason::kNone:
      return "";
    case NoiseReason::kVmInternal:
      return "vmInternal";
    case NoiseReason::kFinalizerTable:
      return "finalizerTable";
    case NoiseReason::kAllocationTracer:
      return "allocationTracer";
    case NoiseReason::kInlineCache:
      return "inlineCache";
    case NoiseReason::kBounded:
      return "bounded";
    case NoiseReason::kUnreachable:
      return "unreachable";
    case NoiseReason::kSharedString:
      return "sharedString";
    case NoiseReason::kCodeLoaded:
      return "codeLoaded";
    case NoiseReason::kTransientHolder:
      return "transientHolder";
    case NoiseReason::kMachineStack:
      return "machineStack";
    case NoiseReason::kCaptureOwn:
      return "captureOwn";
  }
  return "";
}

std::string_view noise_reason_why(NoiseReason reason) {
  switch (reason) {
    case NoiseReason::kNone:
      return "";
    case NoiseReason::kVmInternal:
      return "VM internals (IMEMO, iseq, DATA:VM/*, hidden objects): code compiled or loaded "
             "between A and B, not objects the program keeps";
    case NoiseReason::kFinalizerTable:
      return "hidden arrays reachable only from the finalizers root, created by WeakMap/WeakRef/"
             "define_finalizer";
    case NoiseReason::kAllocationTracer:
      return "kept by ObjectSpace.trace_object_allocations itself, not by the program";
    case NoiseReason::kInlineCache:
      return "inline method and constant caches the VM fills as code runs";
    case NoiseReason::kBounded:
      return "the holder stopped growing (size in C not above B, back near A's after a dip, or it "
             "evicts and all but stopped): a cache at its cap or a pool that grew once";
    case NoiseReason::kUnreachable:
      return "not reachable from any GC root: garbage not yet collected when B was dumped";
    case NoiseReason::kSharedString:
      return "the shared buffers of old strings that became shared (dup, to_json): they replace "
             "the strings' own buffers, not new data";
    case NoiseReason::kCodeLoaded:
      return "classes, modules, methods and their literals defined between A and B (code "
             "loaded or autoloaded on first use), not data the program accumulates";
    case NoiseReason::kTransientHolder:
      return "held in B only by objects gone by C (a request in flight, the machine stack), "
             "and by nothing in B that lives on: no holder keeps them in C that B shows";
    case NoiseReason::kMachineStack:
      return "held only by a word on the machine stack (a C local variable of the code running "
             "when the dump was taken), through no holder that grows: on the stack, not kept";
    case NoiseReason::kCaptureOwn:
      return "heapleak-capture's own objects (its threads, control socket and tracing), which the "
             "capture gem keeps while it takes the series, not the program's";
  }
  return "";
}

}  // namespace heapleak
