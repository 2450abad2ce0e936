// The Ruby-facing name of any object, the one naming function every surface
// uses (CLI, wire `name`, heapleak-client, VS Code through the wire): a
// class or module by its name, `#<Class:UserCache>` for a singleton class,
// `#<Class:0x...>` only for an anonymous class with no better form; any other
// object by its class (`PriceCalculator::Quote`, `StringIO`, `Proc`, `Thread`),
// VM internals by their kind (`IMEMO:env`, `DATA:VM/env`, `ARRAY` when hidden).
#pragma once

#include <string>

#include "core/heap.h"

namespace heapleak {

// How Ruby code would write the object's class, or the class itself when
// `i` is a CLASS or MODULE. Singleton classes are recognised from the
// references (a singleton class references the object it is attached to), so
// heaps loaded without references name them `#<Class:0x...>`.
std::string ruby_name(const Heap& heap, ObjectIndex i);

// The name of class or module object `klass` ("" for kNoObject).
std::string ruby_class_name(const Heap& heap, ObjectIndex klass);

// VM internals a Ruby program never sees as objects of its own: IMEMO
// (iseq, env, inline caches), DATA without a named class (`VM/env`, ...), and
// hidden objects (no class: finalizer tables, internal arrays and hashes),
// and Ractors (the VM's container of threads).
bool is_vm_internal(const Heap& heap, ObjectIndex i);

}  // namespace heapleak
