// What differs between Ruby versions in the records heapleak presents, on
// records shaped like real 3.1-4.0 dumps: each version's GC root categories
// (global_list gone in 3.4, global_symbols new in 4.0), 3.4+'s
// DATA:VM/pin_array_list never a path's first hop, and one group key per
// Ruby class (Set is an OBJECT on 3.4, typed DATA on 4.0).
#include <catch2/catch.hpp>

#include "core/diagnosis/leak_diff.h"
#include "core/explain/explain_pipeline.h"
#include "core/graph/root_paths.h"
#include "core/heap/naming.h"
#include "core/heap/object_key.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

TEST_CASE("root categories of every version are known by kind, not by a fixed list",
          "[ruby_versions]") {
  // The categories each version wrote (tests/rubies probes; 3.1 is Debian's).
  const std::vector<std::pair<std::string, std::vector<std::string>>> versions{
      {"3.1", {"vm", "finalizers", "machine_context", "global_list", "global_tbl"}},
      {"3.2", {"vm", "machine_context", "global_list", "global_tbl"}},
      {"3.3", {"vm", "machine_context", "global_list", "global_tbl"}},
      {"3.4", {"vm", "global_tbl", "machine_context"}},
      {"4.0", {"vm", "global_tbl", "machine_context", "global_symbols"}},
  };
  for (const auto& [version, categories] : versions) {
    INFO("Ruby " << version);
    for (const auto& category : categories) {
      INFO(category);
      const RootKind kind = root_kind(category);
      if (category == "global_tbl" || category == "global_list") {
        CHECK(kind == RootKind::kGlobal);
      } else if (category == "finalizers") {
        CHECK(kind == RootKind::kFinalizer);
      } else if (category == "global_symbols") {
        CHECK(kind == RootKind::kOther);  // the symbol table: not a global variable
      } else {
        CHECK(kind != RootKind::kGlobal);
      }
    }
  }
}

TEST_CASE("3.4's DATA:VM/pin_array_list is moved off the path's first hop", "[ruby_versions]") {
  // As 3.4 writes it: the vm root reaches Object only through the pin array.
  auto heap = load_text(join_lines({
      R"({"type":"ROOT", "root":"vm", "references":["0x22effd4"]})",
      R"({"address":"0x22effd4", "type":"DATA", "shape_id":0, "slot_size":40, "struct":"VM/pin_array_list", "references":["0x340fe68"], "memsize":40})",
      R"({"address":"0x340fe68", "type":"CLASS", "shape_id":0, "slot_size":80, "class":"0x340fc38", "name":"Object", "references":["0x452df74"], "memsize":2368})",
      R"({"address":"0x452df74", "type":"CLASS", "shape_id":226, "slot_size":80, "class":"0x452afa4", "superclass":"0x340fe68", "name":"UserCache", "references":["0x340fe68", "0x452af54"], "memsize":112})",
      R"({"address":"0x452af54", "type":"HASH", "shape_id":0, "slot_size":80, "class":"0x340ab98", "size":1, "memsize":80})",
  }));
  const RootPath path = heap->root_paths().path_to(*heap, index_of(*heap, "0x452af54"));
  CHECK(path.root == "vm");
  REQUIRE(path.path.size() == 3);
  CHECK(ruby_name(*heap, path.path.front()) == "Object");
  REQUIRE(path.root_via.size() == 1);
  CHECK(ruby_name(*heap, path.root_via.front()) == "DATA:VM/pin_array_list");
  // A VM internal asked about keeps its own path.
  const RootPath own = heap->root_paths().path_to(*heap, index_of(*heap, "0x22effd4"));
  CHECK(own.path.size() == 1);
}

TEST_CASE("Set groups as Set on 3.4 (an OBJECT) and on 4.0 (typed DATA)", "[ruby_versions]") {
  auto v34 = load_text(join_lines({
      R"({"address":"0x452be54", "type":"CLASS", "shape_id":0, "slot_size":80, "class":"0x452be04", "name":"Set", "memsize":112})",
      R"({"address":"0x4549814", "type":"OBJECT", "shape_id":315, "slot_size":20, "class":"0x452be54", "embedded":true, "ivars":1, "references":["0x4529d84"], "memsize":20})",
  }));
  auto v40 = load_text(join_lines({
      R"({"address":"0x13083960", "type":"CLASS", "shape_id":0, "slot_size":96, "class":"0x13083900", "name":"Set", "memsize":112})",
      R"({"address":"0x13f59840", "type":"DATA", "shape_id":0, "slot_size":48, "class":"0x13083960", "struct":"set", "references":["0x13fcf3c8", "0x13fcf368"], "memsize":80})",
  }));
  const ObjectIndex s34 = index_of(*v34, "0x4549814");
  const ObjectIndex s40 = index_of(*v40, "0x13f59840");
  CHECK(object_key(*v34, s34) == "Set");
  CHECK(object_key(*v40, s40) == "Set");
  CHECK(ruby_name(*v34, s34) == ruby_name(*v40, s40));
  CHECK_FALSE(is_vm_internal(*v40, s40));
}

TEST_CASE("4.0's VM tables are VM internals, ranked as noise", "[ruby_versions]") {
  auto heap = load_text(join_lines({
      R"({"address":"0x24305d0", "type":"DATA", "shape_id":0, "slot_size":48, "struct":"VM/cc_table", "memsize":256})",
      R"({"address":"0x243e700", "type":"DATA", "shape_id":0, "slot_size":48, "struct":"VM/managed_id_table", "memsize":304})",
  }));
  CHECK(is_vm_internal(*heap, index_of(*heap, "0x24305d0")));
  CHECK(is_vm_internal(*heap, index_of(*heap, "0x243e700")));
  CHECK(object_key(*heap, index_of(*heap, "0x24305d0")) == "DATA:VM/cc_table");
}
