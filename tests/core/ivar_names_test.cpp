// Naming the ivar that holds a reference, on records copied from real dumps
// of CRuby 3.2, 3.4 and 4.0 (wasm builds, tests/rubies; string values and
// flags trimmed): exact when every ivar is heap-valued, candidates when
// immediates hide positions, duplicates, hidden and too-complex shapes, and
// 4.0's IMEMO:fields folded into its owner.
#include "core/heap/ivar_names.h"

#include <catch2/catch.hpp>

#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/ownership.h"
#include "core/graph/root_paths.h"
#include "core/heap/naming.h"
#include "core/heap/object_key.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// The heap re-reads holders' records from the file: keep it while testing.
struct Loaded {
  TempFile file;
  std::shared_ptr<const Heap> heap;
  explicit Loaded(const std::string& text) : file(text) {
    auto loaded = load_heap(file.path(), {});
    if (!loaded) FAIL("load failed: " << loaded.error().message);
    heap = *loaded;
  }
  ObjectIndex at(const std::string& address) const { return index_of(*heap, address); }
  EdgeName name(const std::string& holder, const std::string& target) const {
    return ivar_holding(*heap, at(holder), at(target));
  }
};

// Ruby 3.4: T_OBJECT roots with parent_id 65535 (the 16-bit invalid id on
// wasm), AllHeap (@a @b @c all heap objects), Mixed (@a "y", @n 5, @b [2],
// @z nil, @c :sym, @d "z"), Dup (@a s, @b 7, @c s), FrozenO (@a, @b, frozen).
const char* kRuby34 =
    R"({"address":"0x2330048", "type":"SHAPE", "id":0, "depth":1, "shape_type":"ROOT", "edges":10, "memsize":168}
{"address":"0x2330090", "type":"SHAPE", "id":3, "parent_id":65535, "depth":1, "shape_type":"T_OBJECT", "edges":20, "memsize":296}
{"address":"0x2331590", "type":"SHAPE", "id":227, "parent_id":3, "depth":2, "shape_type":"IVAR","edge_name":"@a", "edges":1, "memsize":24}
{"address":"0x23315a8", "type":"SHAPE", "id":228, "parent_id":227, "depth":3, "shape_type":"IVAR","edge_name":"@b", "edges":2, "memsize":72}
{"address":"0x23315c0", "type":"SHAPE", "id":229, "parent_id":228, "depth":4, "shape_type":"IVAR","edge_name":"@c", "edges":0, "memsize":24}
{"address":"0x2331668", "type":"SHAPE", "id":236, "parent_id":228, "depth":4, "shape_type":"FROZEN", "edges":0, "memsize":24}
{"address":"0x23300a8", "type":"SHAPE", "id":4, "parent_id":65535, "depth":1, "shape_type":"T_OBJECT", "edges":6, "memsize":104}
{"address":"0x23315d8", "type":"SHAPE", "id":230, "parent_id":4, "depth":2, "shape_type":"IVAR","edge_name":"@a", "edges":1, "memsize":24}
{"address":"0x23315f0", "type":"SHAPE", "id":231, "parent_id":230, "depth":3, "shape_type":"IVAR","edge_name":"@n", "edges":1, "memsize":24}
{"address":"0x2331608", "type":"SHAPE", "id":232, "parent_id":231, "depth":4, "shape_type":"IVAR","edge_name":"@b", "edges":1, "memsize":24}
{"address":"0x2331620", "type":"SHAPE", "id":233, "parent_id":232, "depth":5, "shape_type":"IVAR","edge_name":"@z", "edges":1, "memsize":24}
{"address":"0x2331638", "type":"SHAPE", "id":234, "parent_id":233, "depth":6, "shape_type":"IVAR","edge_name":"@c", "edges":1, "memsize":24}
{"address":"0x2331650", "type":"SHAPE", "id":235, "parent_id":234, "depth":7, "shape_type":"IVAR","edge_name":"@d", "edges":0, "memsize":24}
{"address":"0x2330078", "type":"SHAPE", "id":2, "parent_id":0, "depth":2, "shape_type":"OBJ_TOO_COMPLEX", "edges":0, "memsize":24}
{"type":"ROOT", "root":"vm", "references":["0x454a200", "0x450c428", "0x454a0c0", "0x454a034", "0x4521b84"]}
{"address":"0x454a200", "type":"OBJECT", "shape_id":229, "slot_size":20, "class":"0x452bbd4", "embedded":true, "ivars":3, "references":["0x452a914", "0x454a1b0", "0x452a874"], "memsize":20}
{"address":"0x452a914", "type":"STRING", "shape_id":0, "slot_size":80, "class":"0x340f5f8", "embedded":true, "coderange":"7bit", "memsize":80}
{"address":"0x454a1b0", "type":"ARRAY", "shape_id":0, "slot_size":20, "class":"0x340ac88", "length":1, "embedded":true, "memsize":20}
{"address":"0x452a874", "type":"HASH", "shape_id":0, "slot_size":80, "class":"0x340ab98", "size":1, "memsize":80}
{"address":"0x450c428", "type":"OBJECT", "shape_id":235, "slot_size":40, "class":"0x452bb34", "embedded":true, "ivars":6, "references":["0x452a824", "0x454a124", "0x452a784"], "memsize":40}
{"address":"0x452a824", "type":"STRING", "shape_id":0, "slot_size":80, "class":"0x340f5f8", "embedded":true, "coderange":"7bit", "memsize":80}
{"address":"0x454a124", "type":"ARRAY", "shape_id":0, "slot_size":20, "class":"0x340ac88", "length":1, "embedded":true, "memsize":20}
{"address":"0x452a784", "type":"STRING", "shape_id":0, "slot_size":80, "class":"0x340f5f8", "embedded":true, "coderange":"7bit", "memsize":80}
{"address":"0x454a0c0", "type":"OBJECT", "shape_id":229, "slot_size":20, "class":"0x452ba94", "embedded":true, "ivars":3, "references":["0x452a734", "0x452a734"], "memsize":20}
{"address":"0x452a734", "type":"STRING", "shape_id":0, "slot_size":80, "class":"0x340f5f8", "embedded":true, "coderange":"7bit", "memsize":80}
{"address":"0x454a034", "type":"OBJECT", "shape_id":236, "slot_size":20, "class":"0x452adc4", "frozen":true, "embedded":true, "ivars":2, "references":["0x452a6e4", "0x452a694"], "memsize":20}
{"address":"0x452a6e4", "type":"STRING", "shape_id":0, "slot_size":80, "class":"0x340f5f8", "embedded":true, "coderange":"7bit", "memsize":80}
{"address":"0x452a694", "type":"STRING", "shape_id":0, "slot_size":80, "class":"0x340f5f8", "embedded":true, "coderange":"7bit", "memsize":80}
{"address":"0x4521b84", "type":"OBJECT", "shape_id":2, "slot_size":80, "class":"0x452dca4", "embedded":true, "ivars":13, "too_complex_shape":true, "references":["0x4521b34"], "memsize":304}
{"address":"0x4521b34", "type":"STRING", "shape_id":0, "slot_size":80, "class":"0x340f5f8", "embedded":true, "memsize":80}
)";

// Ruby 4.0: UserCache's ivars (@cache {}, @count 3, @list [], @@cv "cv")
// live in an IMEMO:fields object whose `class` is the owner; a too-complex
// object has shape_id 0 and `too_complex_shape`.
const char* kRuby40 =
    R"({"address":"0x2450038", "type":"SHAPE", "id":0, "depth":1, "shape_type":"ROOT", "edges":16, "memsize":40}
{"address":"0x24500f8", "type":"SHAPE", "id":8, "parent_id":0, "depth":2, "shape_type":"IVAR","edge_name":"@cache", "edges":1, "memsize":24}
{"address":"0x2450110", "type":"SHAPE", "id":9, "parent_id":8, "depth":3, "shape_type":"IVAR","edge_name":"@count", "edges":1, "memsize":24}
{"address":"0x2450128", "type":"SHAPE", "id":10, "parent_id":9, "depth":4, "shape_type":"IVAR","edge_name":"@list", "edges":1, "memsize":24}
{"address":"0x2450140", "type":"SHAPE", "id":11, "parent_id":10, "depth":5, "shape_type":"IVAR","edge_name":"@@cv", "edges":0, "memsize":24}
{"address":"0x2450158", "type":"SHAPE", "id":12, "parent_id":0, "depth":2, "shape_type":"IVAR","edge_name":"@only", "edges":0, "memsize":24}
{"type":"ROOT", "root":"vm", "references":["0x1308fea0", "0x13fa6f88"]}
{"address":"0x1308fea0", "type":"CLASS", "shape_id":0, "slot_size":96, "class":"0x1308fe40", "name":"Object", "references":["0x13080540", "0x13080600"], "memsize":2312}
{"address":"0x13080540", "type":"CLASS", "shape_id":11, "slot_size":96, "class":"0x130804e0", "superclass":"0x1308fea0", "name":"UserCache", "references":["0x1308fea0", "0x13f59c90"], "memsize":240}
{"address":"0x13f59c90", "type":"IMEMO", "shape_id":11, "slot_size":48, "class":"0x13080540", "imemo_type":"fields", "references":["0x13080420", "0x13fa7a20", "0x13080360"], "memsize":48}
{"address":"0x13080420", "type":"HASH", "shape_id":0, "slot_size":96, "class":"0x13089ba0", "size":1, "references":["0x13080300"], "memsize":96}
{"address":"0x13080300", "type":"STRING", "shape_id":0, "slot_size":96, "class":"0x1308f480", "embedded":true, "memsize":96}
{"address":"0x13fa7a20", "type":"ARRAY", "shape_id":0, "slot_size":24, "class":"0x13089cc0", "length":0, "embedded":true, "memsize":24}
{"address":"0x13080360", "type":"STRING", "shape_id":0, "slot_size":96, "class":"0x1308f480", "embedded":true, "memsize":96}
{"address":"0x13080600", "type":"CLASS", "shape_id":12, "slot_size":96, "class":"0x130805a0", "superclass":"0x1308fea0", "name":"Registry", "references":["0x1308fea0", "0x13f59cc0"], "memsize":240}
{"address":"0x13f59cc0", "type":"IMEMO", "shape_id":12, "slot_size":24, "class":"0x13080600", "imemo_type":"fields", "references":["0x13080480"], "memsize":24}
{"address":"0x13080480", "type":"HASH", "shape_id":0, "slot_size":96, "class":"0x13089ba0", "size":0, "memsize":96}
{"address":"0x13089ba0", "type":"CLASS", "shape_id":0, "slot_size":96, "class":"0x13089b40", "name":"Hash", "memsize":1200}
{"address":"0x13fa6f88", "type":"OBJECT", "shape_id":0, "slot_size":24, "class":"0x13fcfe48", "ivars":3, "too_complex_shape":true, "references":["0x13fcf5a8"], "memsize":152}
{"address":"0x13fcf5a8", "type":"STRING", "shape_id":0, "slot_size":96, "class":"0x1308f480", "embedded":true, "memsize":96}
)";

}  // namespace

TEST_CASE("every ivar heap-valued: each reference is named exactly (3.4)", "[ivar_names]") {
  Loaded d(kRuby34);
  for (auto [target, ivar] :
       {std::pair{"0x452a914", "@a"}, {"0x454a1b0", "@b"}, {"0x452a874", "@c"}}) {
    const EdgeName name = d.name("0x454a200", target);
    CHECK(name.kind == EdgeName::Kind::kExact);
    CHECK(name.names == std::vector<std::string>{ivar});
  }
  // A FROZEN shape on top of the chain adds no slot.
  CHECK(d.name("0x454a034", "0x452a694").names == std::vector<std::string>{"@b"});
  CHECK(d.name("0x454a034", "0x452a694").kind == EdgeName::Kind::kExact);
}

TEST_CASE("immediates hide positions: candidates, never a guess by position", "[ivar_names]") {
  Loaded d(kRuby34);
  // 6 ivars, 3 heap references: the k-th reference is in slots k..k+3.
  const EdgeName first = d.name("0x450c428", "0x452a824");
  CHECK(first.kind == EdgeName::Kind::kCandidates);
  CHECK(first.names == std::vector<std::string>{"@a", "@n", "@b", "@z"});
  const EdgeName last = d.name("0x450c428", "0x452a784");
  CHECK(last.names == std::vector<std::string>{"@b", "@z", "@c", "@d"});
  CHECK(edge_suffix(first) == ".(one of @a, @n, @b, @z)");
}

TEST_CASE("one object in two ivars: duplicates are kept and matched", "[ivar_names]") {
  Loaded d(kRuby34);
  // @a = s, @b = 7, @c = s: references [s, s]; either position may be @b.
  const EdgeName name = d.name("0x454a0c0", "0x452a734");
  CHECK(name.kind == EdgeName::Kind::kCandidates);
  CHECK(name.names == std::vector<std::string>{"@a", "@b", "@c"});
  // With every ivar heap-valued, both are exact.
  IvarSlots slots{true, {"@a", "@b", "@c"}};
  const std::vector<Address> refs{0x10, 0x20, 0x10};
  const EdgeName both = match_slots(slots, refs, 0x10);
  CHECK(both.kind == EdgeName::Kind::kExact);
  CHECK(both.names == std::vector<std::string>{"@a", "@c"});
  CHECK(edge_suffix(both) == ".(@a and @c)");
}

TEST_CASE("too-complex shapes have no chain: no name", "[ivar_names]") {
  Loaded d34(kRuby34);
  CHECK(d34.name("0x4521b84", "0x4521b34").kind == EdgeName::Kind::kNone);  // OBJ_TOO_COMPLEX
  Loaded d40(kRuby40);
  CHECK(d40.name("0x13fa6f88", "0x13fcf5a8").kind == EdgeName::Kind::kNone);  // too_complex_shape
}

TEST_CASE("hidden slots take an index but are never named", "[ivar_names]") {
  // Ruby 3.2's class chain: ID_INTERNAL(246) (the classpath), @cache, @count, @list.
  IvarSlots slots{true, {"", "@cache", "@count", "@list"}};
  const std::vector<Address> refs{0x1, 0x2, 0x3, 0x4};
  CHECK(match_slots(slots, refs, 0x1).kind == EdgeName::Kind::kNone);
  CHECK(match_slots(slots, refs, 0x2).names == std::vector<std::string>{"@cache"});
  // One immediate among them: the first reference may be the hidden slot or @cache.
  const std::vector<Address> three{0x1, 0x2, 0x3};
  const EdgeName maybe = match_slots(slots, three, 0x1);
  CHECK(maybe.kind == EdgeName::Kind::kCandidates);
  CHECK(maybe.names == std::vector<std::string>{"@cache"});
  CHECK(edge_suffix(maybe) == ".(maybe @cache)");
  // More references than ivars: not an ivar list at all.
  CHECK(match_slots(IvarSlots{true, {"@a"}}, three, 0x1).kind == EdgeName::Kind::kNone);
}

TEST_CASE("4.0 fields object: named through it, folded into its owner", "[ivar_names]") {
  Loaded d(kRuby40);
  const Heap& heap = *d.heap;
  const ObjectIndex cache = d.at("0x13080420");
  const ObjectIndex fields = d.at("0x13f59c90");
  CHECK(is_fields_object(heap, fields));
  CHECK(fields_owner(heap, fields) == d.at("0x13080540"));
  // @count is an immediate: the Hash is one of @cache, @count.
  const EdgeName name = d.name("0x13080540", "0x13080420");
  CHECK(name.kind == EdgeName::Kind::kCandidates);
  CHECK(name.names == std::vector<std::string>{"@cache", "@count"});
  // Registry has one ivar: exact.
  CHECK(d.name("0x13080600", "0x13080480").names == std::vector<std::string>{"@only"});
  CHECK(d.name("0x13080600", "0x13080480").kind == EdgeName::Kind::kExact);

  // The path has no IMEMO:fields hop, and its names carry the ivar.
  const RootPath path = heap.root_paths().path_to(heap, d.at("0x13080480"));
  REQUIRE(path.path.size() == 3);
  CHECK(path_names(heap, path.root, path.path, path_vias(heap, path.path)) ==
        std::vector<std::string>{"ROOT vm", "Object", "Registry.@only", "Hash"});
  const RootPath to_cache = heap.root_paths().path_to(heap, cache);
  for (ObjectIndex y : to_cache.path) CHECK_FALSE(is_fields_object(heap, y));

  // Memory counted once: the fields object is no row of its own, and its
  // memsize counts with the owner's.
  CHECK(folded_memsize(heap, d.at("0x13080540")) == 240 + 48);
  for (const Retainer& row : top_retainers(heap, 100))
    CHECK_FALSE(is_fields_object(heap, row.object));
  for (const ClassRetention& row : top_retainers_by_class(heap, 100))
    CHECK(row.key != "IMEMO:fields");
  // The owner of what a fields object holds is the class, never the fields.
  const std::vector<ObjectIndex> both{cache, d.at("0x13fa7a20")};
  const OwnerReport report = find_owner(heap, both);
  CHECK(report.owner.object == d.at("0x13080540"));
}

TEST_CASE("dumps without shapes (Ruby 3.1) name nothing", "[ivar_names]") {
  Loaded d(join_lines({root_line("vm", {"0x10"}),
                       object_line({"0x10", "OBJECT", "", {"0x20"}, "\"ivars\":1"}),
                       object_line({"0x20", "STRING"})}));
  CHECK(d.name("0x10", "0x20").kind == EdgeName::Kind::kNone);
}

TEST_CASE("bad shapes: huge ids, loops and missing parents name nothing, never crash",
          "[ivar_names]") {
  Loaded d(join_lines({
      R"({"address":"0x1", "type":"SHAPE", "id":99999999999, "parent_id":0, "shape_type":"IVAR","edge_name":"@x"})",
      R"({"address":"0x2", "type":"SHAPE", "id":5, "parent_id":6, "shape_type":"IVAR","edge_name":"@a"})",
      R"({"address":"0x3", "type":"SHAPE", "id":6, "parent_id":5, "shape_type":"IVAR","edge_name":"@b"})",
      R"({"address":"0x4", "type":"SHAPE", "id":7, "parent_id":400, "shape_type":"IVAR","edge_name":"@c"})",
      root_line("vm", {"0x10", "0x20", "0x30"}),
      object_line({"0x10", "OBJECT", "", {"0x40"}, R"("shape_id":99999999999)"}),
      object_line({"0x20", "OBJECT", "", {"0x40"}, R"("shape_id":6)"}),
      object_line({"0x30", "OBJECT", "", {"0x40"}, R"("shape_id":7)"}),
      object_line({"0x40", "STRING"}),
  }));
  CHECK(d.heap->shapes().kind.size() == 8);  // the huge id was not kept
  CHECK(d.name("0x10", "0x40").kind == EdgeName::Kind::kNone);
  CHECK(d.name("0x20", "0x40").kind == EdgeName::Kind::kNone);  // a loop
  CHECK(d.name("0x30", "0x40").kind == EdgeName::Kind::kNone);  // parent 400 absent
}

// Before 4.0 a class's ivars are its own, and its references follow the GC's
// marking order: superclass, method entries and call caches, ivars in shape
// order, constants (value, defining file), then (3.3+) the class path; 3.2
// keeps the class path as a hidden ivar instead. Records from wasm 3.2 and 3.3
// (tests/rubies), trimmed.
namespace {
const char* kRuby33Class =
    R"({"address":"0x1", "type":"SHAPE", "id":0, "depth":1, "shape_type":"ROOT", "edges":10, "memsize":168}
{"address":"0x2", "type":"SHAPE", "id":226, "parent_id":0, "depth":2, "shape_type":"IVAR","edge_name":"@sessions", "edges":0, "memsize":24}
{"address":"0x3", "type":"SHAPE", "id":225, "parent_id":0, "depth":2, "shape_type":"IVAR","edge_name":"@count", "edges":1, "memsize":24}
{"address":"0x4", "type":"SHAPE", "id":227, "parent_id":225, "depth":3, "shape_type":"IVAR","edge_name":"@sessions", "edges":1, "memsize":24}
{"address":"0x5", "type":"SHAPE", "id":228, "parent_id":227, "depth":4, "shape_type":"IVAR","edge_name":"@names", "edges":0, "memsize":24}
{"type":"ROOT", "root":"vm", "references":["0x39afe68"]}
{"address":"0x39afe68", "type":"CLASS", "shape_id":0, "slot_size":80, "name":"Object", "references":["0x48e8b64", "0x48e9000"], "memsize":160}
{"address":"0x48e8b64", "type":"CLASS", "shape_id":226, "slot_size":80, "class":"0x48e8ac4", "superclass":"0x39afe68", "name":"SessionStore", "references":["0x39afe68", "0x48e8a74", "0x4a47c94"], "memsize":160}
{"address":"0x48e8a74", "type":"HASH", "shape_id":0, "slot_size":80, "size":1, "memsize":80}
{"address":"0x4a47c94", "type":"STRING", "shape_id":0, "slot_size":40, "fstring":true, "bytesize":12, "value":"SessionStore", "memsize":40}
{"address":"0x48e9000", "type":"CLASS", "shape_id":228, "slot_size":80, "class":"0x48e8ac4", "superclass":"0x39afe68", "name":"Store", "references":["0x39afe68", "0x48e9050", "0x48e9100", "0x48e9150", "0x4a47e24", "0x48e9200", "0x4a47e24", "0x48e91a0"], "memsize":160}
{"address":"0x48e9050", "type":"IMEMO", "shape_id":0, "slot_size":40, "imemo_type":"ment", "memsize":40}
{"address":"0x48e9100", "type":"HASH", "shape_id":0, "slot_size":80, "size":1, "memsize":80}
{"address":"0x48e9150", "type":"ARRAY", "shape_id":0, "slot_size":40, "length":0, "memsize":40}
{"address":"0x4a47e24", "type":"STRING", "shape_id":0, "slot_size":40, "fstring":true, "bytesize":8, "value":"/p/ss.rb", "memsize":40}
{"address":"0x48e9200", "type":"STRING", "shape_id":0, "slot_size":40, "bytesize":7, "value":"limit-6", "memsize":40}
{"address":"0x48e91a0", "type":"STRING", "shape_id":0, "slot_size":40, "fstring":true, "bytesize":5, "value":"Store", "memsize":40}
)";

const char* kRuby32Class =
    R"X({"address":"0x1", "type":"SHAPE", "id":0, "depth":1, "shape_type":"ROOT", "edges":10, "memsize":168}
{"address":"0x2", "type":"SHAPE", "id":4, "parent_id":0, "depth":2, "shape_type":"IVAR","edge_name":"ID_INTERNAL(246)", "edges":3, "memsize":24}
{"address":"0x3", "type":"SHAPE", "id":163, "parent_id":4, "depth":3, "shape_type":"IVAR","edge_name":"@sessions", "edges":0, "memsize":24}
{"type":"ROOT", "root":"vm", "references":["0x25ef3c4"]}
{"address":"0x25ef3c4", "type":"CLASS", "shape_id":4, "slot_size":20, "name":"Object", "references":["0x5ff1608"], "memsize":160}
{"address":"0x5ff1608", "type":"CLASS", "shape_id":163, "slot_size":20, "class":"0x5ff15f4", "superclass":"0x25ef3c4", "name":"SessionStore", "references":["0x25ef3c4", "0x5ff6f68", "0x5ff1554"], "memsize":184}
{"address":"0x5ff6f68", "type":"STRING", "shape_id":0, "slot_size":20, "bytesize":12, "value":"SessionStore", "memsize":20}
{"address":"0x5ff1554", "type":"HASH", "shape_id":0, "slot_size":20, "size":1, "memsize":20}
)X";
}  // namespace

TEST_CASE("a class's ivar before 4.0: named where the marking order pins it", "[ivar_names]") {
  Loaded d33(kRuby33Class);
  // One ivar, no constants: superclass, @sessions, class path.
  const EdgeName sessions = d33.name("0x48e8b64", "0x48e8a74");
  CHECK(sessions.kind == EdgeName::Kind::kExact);
  CHECK(edge_suffix(sessions) == ".@sessions");
  CHECK(d33.name("0x48e8b64", "0x4a47c94").kind == EdgeName::Kind::kNone);  // the class path

  Loaded d32(kRuby32Class);  // the class path is 3.2's first (hidden) ivar
  CHECK(edge_suffix(d32.name("0x5ff1608", "0x5ff1554")) == ".@sessions");
  CHECK(d32.name("0x5ff1608", "0x5ff6f68").kind == EdgeName::Kind::kNone);
}

TEST_CASE("a class's ivars next to constants and immediates: candidates", "[ivar_names]") {
  Loaded d(kRuby33Class);
  // Store: @count 0, @sessions {}, @names [], LIMIT "limit-6" (its file
  // string twice: two constants), a method entry. Five references left for
  // three slots: constants follow, so nothing is exact.
  const EdgeName hash = d.name("0x48e9000", "0x48e9100");
  CHECK(hash.kind == EdgeName::Kind::kCandidates);
  CHECK(edge_suffix(hash) == ".(one of @count, @sessions, @names)");
  CHECK(edge_suffix(d.name("0x48e9000", "0x48e9150")) == ".(one of @sessions, @names)");
  // Past the last slot: a constant's value or file, never an ivar.
  CHECK(d.name("0x48e9000", "0x48e9200").kind == EdgeName::Kind::kNone);
  CHECK(d.name("0x48e9000", "0x48e91a0").kind == EdgeName::Kind::kNone);
}
