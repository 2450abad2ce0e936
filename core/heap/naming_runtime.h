// Names for what a program makes at run time, in Ruby's words: a class with
// no constant ("anonymous subclass of BaseForm", a Struct by its members), a
// class's superclass, and where a block or proc was defined ("block in
// start_query_counter (app/models/stats.rb)", from the Proc's iseq: the dump
// writes its label and path even when allocations were not traced).
#pragma once

#include <string>

#include "core/heap/heap.h"

namespace heapleak {

// The superclass of class `klass` (the ICLASSes of included modules passed
// over), from its record; kNoObject when it is not a class or not known.
ObjectIndex superclass_of(const Heap& heap, ObjectIndex klass);

// What class `klass` is when it has no name of its own: "Struct(:sku, :qty)"
// (members the dump names; "Struct with 3 members" otherwise), "anonymous
// subclass of BaseForm", "singleton class"; its name when it has one.
std::string class_kind(const Heap& heap, ObjectIndex klass);

// A class in a row's words: its name; `#<Class:Foo>` for Foo's singleton
// class; "singleton class of a Foo" for an object's (Ruby's
// `#<Class:#<Foo:0x...>>`, whose address changes every run); class_kind for
// an anonymous class, never `#<Class:0x...>`.
std::string class_label(const Heap& heap, ObjectIndex klass);

// The group a class made at run time falls in, so that 1,500 of them are one
// group: "Struct classes", "subclasses of BaseView", "singleton classes";
// empty for a class with nothing in common to fold by.
std::string class_family(const Heap& heap, ObjectIndex klass);

// "block in initialize (/app/upload.rb)" for a Proc (the method and file
// that defined its block), "" when the dump does not say.
std::string block_origin(const Heap& heap, ObjectIndex proc);

bool is_proc(const Heap& heap, ObjectIndex i);
bool is_thread(const Heap& heap, ObjectIndex i);

}  // namespace heapleak
