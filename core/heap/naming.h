// The Ruby-facing name of any object, the one naming function every surface
// uses (CLI, wire `name`, heapleak-client, VS Code through the wire): a
// class or module by its name, `#<Class:UserCache>` for a singleton class,
// `#<Class:0x...>` only for an anonymous class with no better form; any other
// object by its class (`PriceCalculator::Quote`, `StringIO`, `Proc`, `Thread`),
// VM internals by their kind (`IMEMO:env`, `DATA:VM/env`, `ARRAY` when hidden).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/heap/heap.h"
#include "core/heap/ivar_names.h"

namespace heapleak {

// How Ruby code would write the object's class, or the class itself when
// `i` is a CLASS or MODULE. Singleton classes are recognised from the
// references (a singleton class references the object it is attached to), so
// heaps loaded without references name them `#<Class:0x...>`.
std::string ruby_name(const Heap& heap, ObjectIndex i);

// `#<Class:0x...>`/`#<Module:0x...>`: the temporary path Ruby gives (and
// dumps as the name of) a class or module with no constant, not a name.
bool is_address_name(std::string_view name);

// The name of class or module object `klass` ("" for kNoObject).
std::string ruby_class_name(const Heap& heap, ObjectIndex klass);

// VM internals a Ruby program never sees as objects of its own: IMEMO
// (iseq, env, inline caches), DATA without a named class (`VM/env`, ...), and
// hidden objects (no class: finalizer tables, internal arrays and hashes),
// and Ractors (the VM's container of threads).
bool is_vm_internal(const Heap& heap, ObjectIndex i);

// is_fields_object (Ruby 4.0's `IMEMO:fields`) is in ivar_names.h, which reads them.

// The object whose ivars fields object `i` holds: its referrer that is not a
// VM internal (a class prefers to a stray reference); kNoObject if none.
ObjectIndex fields_owner(const Heap& heap, ObjectIndex i);
// `i` itself, or the owner of fields object `i` when it has one.
ObjectIndex fold_fields(const Heap& heap, ObjectIndex i);
// Own memsize plus that of the fields objects `i` owns.
std::uint64_t folded_memsize(const Heap& heap, ObjectIndex i);

// What a GC root category is, by name: the set of names differs by Ruby
// version (`global_list` until 3.3, `global_symbols` from 4.0), so callers
// ask here rather than compare names. Unknown names are kOther.
enum class RootKind { kGlobal, kFinalizer, kMachineStack, kVm, kOther };
RootKind root_kind(std::string_view category);

// "ROOT vm"; a category whose name says nothing to a Ruby programmer also
// gets their word for it: "ROOT end_proc (at_exit blocks)".
std::string root_label(std::string_view category);

// The names of a root path as every surface shows them: "ROOT vm", then each
// object's ruby_name followed by the ivar through which it holds the next
// object when the dump says so (`UserCache.@cache`, see ivar_names.h).
// `vias[k]` is how path[k] is held by path[k-1] (vias[0] is empty). Naming
// a hop re-reads the holder's record; `memo`, when given, keeps the names
// across the many paths of one answer (they share their first hops).
using EdgeNameMemo = std::unordered_map<std::uint64_t, EdgeName>;
std::vector<EdgeName> path_vias(const Heap& heap, const std::vector<ObjectIndex>& path,
                                EdgeNameMemo* memo = nullptr);
std::vector<std::string> path_names(const Heap& heap, std::string_view root,
                                    const std::vector<ObjectIndex>& path,
                                    const std::vector<EdgeName>& vias);

}  // namespace heapleak
