// Counterparts streamed from a dump file equal the ones made of the loaded
// heap (core/diagnosis/counterparts.h): every flag of every object of B, the
// sizes that changed, the dump's counts and the identity rule, on the
// public fixtures and on small dumps built for each test the flags stand for.
#include "core/diagnosis/counterparts.h"

#include <catch2/catch.hpp>
#include <string>

#include "core/diagnosis/streamed_counterparts.h"
#include "core/loading/loader.h"
#include "tests/core/test_dump.h"

namespace heapleak {
namespace {

using test::class_line;
using test::join_lines;
using test::Obj;
using test::object_line;
using test::TempFile;

std::string fixture(const std::string& name) {
  return std::string(HEAPLEAK_TEST_DATA_DIR) + "/" + name;
}

std::shared_ptr<const Heap> load(const std::string& path, LoadMode mode) {
  LoadOptions options;
  options.mode = mode;
  return load_heap(path, options).value();
}

// The streamed answer, field by field, against the loaded one.
void check_equal(const Heap& target, const std::string& other_path) {
  const auto other = load(other_path, LoadMode::kIdentityOnly);
  const Counterparts want = counterparts_of(target, *other);
  const auto got = stream_counterparts(target, other_path);
  REQUIRE(got.has_value());
  REQUIRE(got->flags.size() == want.flags.size());
  std::size_t differing = 0;
  for (ObjectIndex i = 0; i < want.flags.size(); ++i) {
    if (got->flags[i] == want.flags[i]) continue;
    if (++differing <= 5)
      FAIL_CHECK("object " << i << " at 0x" << std::hex << target.address(i) << std::dec
                           << ": streamed flags " << int(got->flags[i]) << ", loaded "
                           << int(want.flags[i]));
  }
  CHECK(differing == 0);
  CHECK(got->changed.size() == want.changed.size());
  for (const auto& [i, sizes] : want.changed) {
    const auto it = got->changed.find(i);
    REQUIRE(it != got->changed.end());
    CHECK(it->second.length == sizes.length);
    CHECK(it->second.memsize == sizes.memsize);
  }
  // The dump's summary: what the series check and the memory accounting read.
  const DumpSummary& g = got->dump;
  const DumpSummary& w = want.dump;
  CHECK(g.objects == w.objects);
  CHECK(g.bytes == w.bytes);
  CHECK(g.by_type == w.by_type);
  CHECK(g.pages == w.pages);
  CHECK(g.newest_generation == w.newest_generation);
  CHECK(g.traced == w.traced);
  CHECK(got->rule.describe() == want.rule.describe());
  CHECK(g.report.lines == w.report.lines);
  CHECK(g.report.root_records == w.report.root_records);
  CHECK(g.report.broken_lines == w.report.broken_lines);
  CHECK(g.report.duplicate_addresses == w.report.duplicate_addresses);
  CHECK(g.report.traced == w.report.traced);
  CHECK(g.report.objects == w.report.objects);
  for (ObjectIndex i = 0; i < want.flags.size(); ++i) CHECK_NOFAIL(got->same(i) == want.same(i));
}

TEST_CASE("counterparts: streamed as loaded, on the rbheap series", "[counterparts]") {
  const auto b = load(fixture("rbheap-3dump/heap2.jsonl.gz"), LoadMode::kFull);
  check_equal(*b, fixture("rbheap-3dump/heap1.jsonl.gz"));
  check_equal(*b, fixture("rbheap-3dump/heap3.jsonl.gz"));
  check_equal(*b, fixture("rbheap-3dump/heap2.jsonl.gz"));  // itself: all the same
}

TEST_CASE("counterparts: streamed as loaded, traced Ruby 3.2 dumps", "[counterparts]") {
  const auto b = load(fixture("heap-profiler/ruby-3.2-partial-retained.heap"), LoadMode::kFull);
  check_equal(*b, fixture("heap-profiler/ruby-3.2-partial-empty.heap"));
  check_equal(*b, fixture("heap-profiler/ruby-3.2-partial-retained.heap"));
}

// B and another dump built to meet each test: a class whose record follows
// its instances, an instance whose class moved to another address with the
// same name, a class renamed at its address, a duplicate address, an IMEMO
// with a junk class, a String that turned shared, lengths that changed, a
// Thread, a slot reused by another type.
TEST_CASE("counterparts: streamed as loaded, every test met", "[counterparts]") {
  const std::string b_text = join_lines({
      class_line("0x100", "Foo"),
      class_line("0x110", "Bar"),
      class_line("0x120", "Thread"),
      object_line(Obj{"0x200", "OBJECT", "0x100", {"0x300"}}),
      object_line(Obj{"0x210", "OBJECT", "0x110", {}}),
      object_line(Obj{"0x220", "ARRAY", "", {"0x300"}, "\"length\":3"}),
      object_line(Obj{"0x230", "HASH", "", {}, "\"size\":2"}),
      object_line(Obj{"0x240", "STRING", "", {"0x250"}, "\"bytesize\":5"}),
      object_line(Obj{"0x250", "STRING", "", {}, "\"value\":\"hello\", \"bytesize\":5"}),
      object_line(Obj{"0x260", "DATA", "0x120", {}, "\"struct\":\"thread\""}),
      object_line(Obj{"0x270", "IMEMO", "0x110", {}, "\"imemo_type\":\"env\""}),
      object_line(Obj{"0x280", "OBJECT", "0x100", {}}),
      object_line(Obj{"0x290", "STRING", "", {}, "\"value\":\"b\", \"bytesize\":1"}),
      object_line(Obj{"0x300", "STRING", "", {}, "\"value\":\"x\", \"bytesize\":1"}),
  });
  const std::string other_text = join_lines({
      object_line(Obj{"0x200", "OBJECT", "0x100", {"0x300"}}),  // before its class
      object_line(Obj{"0x200", "STRING", "", {}}),              // a duplicate: the first counts
      object_line(Obj{"0x210", "OBJECT", "0x510", {}}),         // Bar, moved
      object_line(Obj{"0x220", "ARRAY", "", {"0x300"}, "\"length\":2"}),
      object_line(Obj{"0x230", "HASH", "", {}, "\"size\":2"}),
      object_line(Obj{"0x240", "STRING", "", {}, "\"value\":\"other\", \"bytesize\":5"}),
      object_line(Obj{"0x250", "STRING", "", {}, "\"value\":\"hello\", \"bytesize\":5"}),
      object_line(Obj{"0x260", "DATA", "0x120", {}, "\"struct\":\"thread\""}),
      object_line(Obj{"0x270", "IMEMO", "0x999", {}, "\"imemo_type\":\"env\""}),
      object_line(Obj{"0x280", "OBJECT", "0x110", {}}),  // another class at a known address
      object_line(Obj{"0x290", "ARRAY", "", {}, "\"length\":0"}),  // the slot reused
      object_line(Obj{"0x300", "STRING", "", {}, "\"value\":\"x\", \"bytesize\":1"}),
      object_line(Obj{"0x400", "STRING", "", {}, "\"value\":\"new\", \"bytesize\":3"}),
      class_line("0x100", "Foo"),
      class_line("0x110", "Baz"),  // renamed at its address
      class_line("0x120", "Thread"),
      class_line("0x510", "Bar"),
  });
  const TempFile b_file(b_text);
  const TempFile other_file(other_text);
  const auto b = load(b_file.path(), LoadMode::kFull);
  check_equal(*b, other_file.path());
  // What the flags say of a few: read from the stream.
  const auto got = stream_counterparts(*b, other_file.path()).value();
  auto at = [&](const char* address) { return test::index_of(*b, address); };
  CHECK(got.same(at("0x200")));        // class record after it: still Foo
  CHECK(got.same(at("0x210")));        // Bar at another address
  CHECK_FALSE(got.same(at("0x280")));  // Foo -> Baz
  CHECK(got.changed.count(at("0x220")) == 1);
  CHECK(got.changed.count(at("0x230")) == 0);
  CHECK((got.flags[at("0x240")] & Counterparts::kSharedElsewhere) != 0);
  CHECK((got.flags[at("0x260")] & Counterparts::kSameThread) != 0);
  CHECK(got.same(at("0x270")));  // an IMEMO's class is junk
  CHECK_FALSE(got.same(at("0x290")));
  CHECK(got.dump.report.duplicate_addresses == 1);
}

}  // namespace
}  // namespace heapleak
