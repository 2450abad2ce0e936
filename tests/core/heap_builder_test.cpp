#include "core/heap/heap_builder.h"

#include <catch2/catch.hpp>

#include "tests/core/same_heap.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

TEST_CASE("objects are sorted by address whatever the file order", "[heap_builder]") {
  auto heap = load_text(join_lines({
      object_line({"0x300", "STRING"}),
      object_line({"0x100", "STRING"}),
      object_line({"0x200", "STRING"}),
  }));
  REQUIRE(heap->size() == 3);
  CHECK(heap->address(0) == 0x100);
  CHECK(heap->address(1) == 0x200);
  CHECK(heap->address(2) == 0x300);
  CHECK(heap->find(0x200) == ObjectIndex{1});
  CHECK_FALSE(heap->find(0x250));
}

TEST_CASE("references become CSR edges in both directions", "[heap_builder]") {
  auto heap = load_text(join_lines({
      object_line({"0x100", "ARRAY", "", {"0x300", "0x200", "0x300", "0x999"}}),
      object_line({"0x200", "STRING"}),
      object_line({"0x300", "HASH", "", {"0x200"}}),
  }));
  const ObjectIndex a = index_of(*heap, "0x100"), s = index_of(*heap, "0x200"),
                    h = index_of(*heap, "0x300");
  // duplicates collapse to one edge; the absent 0x999 is counted, not fatal
  CHECK(std::vector<ObjectIndex>(heap->references(a).begin(), heap->references(a).end()) ==
        std::vector<ObjectIndex>{s, h});
  CHECK(std::vector<ObjectIndex>(heap->referrers(s).begin(), heap->referrers(s).end()) ==
        std::vector<ObjectIndex>{a, h});
  CHECK(heap->referrers(a).empty());
  CHECK(heap->report().missing_references == 1);
  CHECK(heap->report().references == 3);
}

TEST_CASE("duplicate addresses keep the first record", "[heap_builder]") {
  auto heap = load_text(join_lines({
      object_line({"0x100", "STRING", "", {}, R"("value":"first")"}),
      object_line({"0x100", "ARRAY"}),
  }));
  REQUIRE(heap->size() == 1);
  CHECK(heap->type(0) == ObjectType::kString);
  CHECK(heap->report().duplicate_addresses == 1);
}

TEST_CASE("classes resolve to names; IMEMO class fields are ignored", "[heap_builder]") {
  auto heap = load_text(join_lines({
      class_line("0x10", "User"), object_line({"0x100", "OBJECT", "0x10"}),
      object_line({"0x200", "IMEMO", "0x10", {}, R"("imemo_type":"env")"}),
      object_line({"0x300", "OBJECT", "0x77"}),  // class not in the dump
  }));
  CHECK(heap->class_name(index_of(*heap, "0x100")) == "User");
  CHECK(heap->class_index(index_of(*heap, "0x200")) == kNoObject);
  CHECK(heap->class_name(index_of(*heap, "0x300")).empty());
}

TEST_CASE("allocation columns appear when tracing starts mid-dump", "[heap_builder]") {
  auto heap = load_text(join_lines({
      object_line({"0x100", "STRING"}),
      object_line({"0x200", "STRING", "", {}, R"("file":"a.rb", "line":3, "generation":7)"}),
      object_line({"0x300", "STRING", "", {}, R"("file":"b.rb", "line":9, "generation":0)"}),
  }));
  REQUIRE(heap->has_allocation_info());
  CHECK(heap->file(0).empty());
  CHECK_FALSE(heap->generation(0));
  CHECK(heap->file(1) == "a.rb");
  CHECK(heap->line(1) == 3);
  CHECK(heap->generation(1) == 7u);
  CHECK(heap->file(2) == "b.rb");
  CHECK(heap->generation(2) == 0u);
}

TEST_CASE("roots name their categories; missing targets are counted", "[heap_builder]") {
  auto heap = load_text(join_lines({
      root_line("vm", {"0x100", "0x100", "0x555"}),
      root_line("global_tbl", {"0x200"}),
      root_line("vm", {"0x200"}),
      object_line({"0x100", "STRING"}),
      object_line({"0x200", "STRING"}),
  }));
  REQUIRE(heap->roots().size() == 2);
  CHECK(heap->roots()[0].name == "vm");
  CHECK(heap->roots()[0].targets.size() == 2);
  CHECK(heap->roots()[1].name == "global_tbl");
  CHECK(heap->report().missing_references == 1);
}

TEST_CASE("without edges the heap keeps identity columns only", "[heap_builder]") {
  LoadOptions options;
  options.mode = LoadMode::kIdentityOnly;
  auto heap = load_text(join_lines({object_line({"0x100", "ARRAY", "", {"0x200"}}),
                                    object_line({"0x200", "STRING"})}),
                        options);
  CHECK_FALSE(heap->has_edges());
  CHECK(heap->references(0).empty());
  CHECK(heap->first_ref(index_of(*heap, "0x100")) != 0);
}

TEST_CASE("resident memory stays within the per-object budget", "[heap_builder]") {
  std::vector<std::string> lines;
  for (int k = 0; k < 20000; ++k) {
    lines.push_back(object_line({"0x" + std::to_string(100000 + k),
                                 "ARRAY",
                                 "",
                                 {"0x" + std::to_string(100000 + (k + 1) % 20000)}}));
  }
  auto heap = load_text(join_lines(lines));
  CHECK(heap->bytes_used() / heap->size() <= 100);
}

TEST_CASE("interleaved page runs merge by address, duplicates keep the first in file",
          "[heap_builder]") {
  // Runs: [0x100 0x400 0x700] [0x200 0x500] [0x150 0x400 0x900] [0x800] [0x050 0x060]:
  // they overlap, share an address and include runs that are wholly apart.
  std::vector<std::string> lines;
  auto add = [&](const char* address, const char* type) {
    lines.push_back(object_line({address, type}));
  };
  add("0x100", "STRING");
  add("0x400", "STRING");  // the first 0x400: kept
  add("0x700", "STRING");
  add("0x200", "STRING");
  add("0x500", "STRING");
  add("0x150", "STRING");
  add("0x400", "HASH");  // a later 0x400: dropped
  add("0x900", "STRING");
  add("0x800", "STRING");
  add("0x050", "STRING");
  add("0x060", "STRING");
  auto heap = load_text(join_lines(lines));
  const std::vector<Address> expected{0x50,  0x60,  0x100, 0x150, 0x200,
                                      0x400, 0x500, 0x700, 0x800, 0x900};
  REQUIRE(heap->size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    CHECK(heap->address(static_cast<ObjectIndex>(i)) == expected[i]);
  CHECK(heap->type(index_of(*heap, "0x400")) == ObjectType::kString);
  CHECK(heap->report().duplicate_addresses == 1);
}

TEST_CASE("references resolve through the address index on a larger heap", "[heap_builder]") {
  // Enough objects that the index wraps and probes; each refers to its
  // successor and to one absent address.
  std::vector<std::string> lines;
  const int count = 5000;
  for (int i = 0; i < count; ++i) {
    const int page = (i * 7) % count;  // a scrambled file order
    std::vector<std::string> refs{"0x" + std::to_string(100000 + (page + 1) % count), "0x99999999"};
    lines.push_back(object_line({"0x" + std::to_string(100000 + page), "ARRAY", "", refs}));
  }
  auto heap = load_text(join_lines(lines));
  REQUIRE(heap->size() == count);
  CHECK(heap->report().missing_references == count);
  CHECK(heap->report().references == count);
  for (int page : {0, 1, 2500, count - 1}) {
    const ObjectIndex from = index_of(*heap, "0x" + std::to_string(100000 + page));
    const ObjectIndex to = index_of(*heap, "0x" + std::to_string(100000 + (page + 1) % count));
    REQUIRE(heap->references(from).size() == 1);
    CHECK(heap->references(from)[0] == to);
    REQUIRE(heap->referrers(to).size() == 1);
    CHECK(heap->referrers(to)[0] == from);
  }
}

TEST_CASE("container lengths survive the sort, also in identity-only loads", "[heap_builder]") {
  const std::string text = join_lines({
      object_line({"0x300", "HASH", "", {}, R"("size":7)"}),
      object_line({"0x100", "ARRAY", "", {}, R"("length":2)"}),
      object_line({"0x200", "STRING", "", {}, R"("value":"a")"}),
  });
  for (bool edges : {true, false}) {
    LoadOptions options;
    options.mode = edges ? LoadMode::kFull : LoadMode::kIdentityOnly;
    auto heap = load_text(text, options);
    CHECK(heap->length(index_of(*heap, "0x100")) == 2u);
    CHECK(heap->length(index_of(*heap, "0x300")) == 7u);
    CHECK_FALSE(heap->length(index_of(*heap, "0x200")).has_value());
  }
}

namespace {

// Object k of a made-up heap: scattered addresses, a few classes (the
// class objects themselves come first), names, references to neighbours,
// one to an object the heap lacks, and allocation sites from object 300 on.
DumpRecord made_up_object(int k, int count) {
  static const std::string kNames[] = {"Alpha", "Beta", "Gamma", "Delta"};
  static const std::string kFiles[] = {"app/a.rb", "app/b.rb", "lib/c.rb"};
  static const std::string kMethods[] = {"call", "build", "each"};
  auto address = [count](int i) { return Address{0x100000} + 40 * ((i * 7919) % count); };
  DumpRecord record;
  record.kind = RecordKind::kObject;
  record.address = address(k);
  if (k < 4) {
    record.type = ObjectType::kClass;
    record.own_name = kNames[k];
  } else {
    record.type = k % 3 ? ObjectType::kArray : ObjectType::kString;
    record.class_address = address(k % 4);
    record.references = {address((k + 1) % count), address((k + 1) % count), address(k / 2),
                         Address{0x7000000} + k};
    // Names first seen in the later half too, and in another order there.
    if (k % 5 == 0) record.own_name = kNames[(k / 5) % 4];
  }
  record.memsize = 40 + k % 9;
  record.value_hash = static_cast<std::uint32_t>(k * 31);
  record.has_length = k % 2 == 0;
  record.length = static_cast<std::uint64_t>(k % 11);
  if (k >= 300) {
    record.file = kFiles[(count - k) % 3];
    record.method = kMethods[(k / 7) % 3];
    record.line = static_cast<std::uint64_t>(k % 100);
    record.has_line = true;
  }
  return record;
}

}  // namespace

TEST_CASE("a builder absorbs a later one's pages, past a hole: the heap one builder makes",
          "[heap_builder][split]") {
  // Room enough for most columns to be mapped, so that absorb() moves their
  // pages (Column::append_pages) after padding the first builder's columns
  // to a page; the one-byte type column is copied. Each way, the heap must
  // be the one a single builder makes of every record.
  constexpr int kCount = 40000, kFirst = 17000;
  for (LoadMode mode : {LoadMode::kFull, LoadMode::kIdentityOnly}) {
    HeapBuilder one(mode), first(mode), later(mode);
    one.reserve(std::size_t{2} << 20, std::size_t{4} << 20);
    first.reserve(std::size_t{2} << 20, std::size_t{4} << 20);
    later.reserve(std::size_t{11} << 17, std::size_t{11} << 18);
    DumpRecord root;
    root.kind = RecordKind::kRoot;
    root.root_name = "vm";
    root.references = {0x100000, 0x100000 + 40 * 5};
    one.add_root(root);
    first.add_root(root);
    for (int k = 0; k < kCount; ++k) {
      const DumpRecord record = made_up_object(k, kCount);
      one.add_object(record, std::uint64_t{100} * k);
      (k < kFirst ? first : later).add_object(record, std::uint64_t{100} * k);
    }
    root.root_name = "global_tbl";
    one.add_root(root);
    later.add_root(root);
    first.absorb(std::move(later));
    CHECK(first.object_count() == std::size_t{kCount});
    const auto started = std::chrono::steady_clock::now();
    auto whole = one.finish(LoadReport{}, started);
    auto absorbed = first.finish(LoadReport{}, started, nullptr, nullptr, true);
    REQUIRE(whole->size() == std::size_t{kCount});
    CHECK(absorbed->report().duplicate_addresses == 0);
    CHECK(absorbed->report().missing_references == whole->report().missing_references);
    require_same_heap(*whole, *absorbed);
    CHECK(absorbed->roots().size() == 2);
  }
}

TEST_CASE("thousands of classes keep their names as the class table grows", "[heap_builder]") {
  // Past 512 classes the table doubles (more than once here); objects name
  // their classes in an order unlike the classes' own.
  constexpr int kClasses = 3000;
  auto class_address = [](int k) { return "0x" + std::to_string(100000 + 40 * k); };
  std::vector<std::string> lines;
  for (int k = 0; k < kClasses; ++k) {
    const int c = (k * 1237) % kClasses;
    lines.push_back(
        object_line({"0x" + std::to_string(900000 + 40 * k), "OBJECT", class_address(c)}));
  }
  for (int c = 0; c < kClasses; ++c)
    lines.push_back(class_line(class_address(c), "Model" + std::to_string(c)));
  auto heap = load_text(join_lines(lines));
  REQUIRE(heap->size() == std::size_t{2 * kClasses});
  for (int k = 0; k < kClasses; k += 7) {
    const int c = (k * 1237) % kClasses;
    const ObjectIndex object = index_of(*heap, "0x" + std::to_string(900000 + 40 * k));
    CHECK(heap->class_name(object) == "Model" + std::to_string(c));
  }
}

namespace {

// Object `k` of a dump written as Ruby 3.1 writes it: pages of 409 slots
// in descending page order, ascending within a page; every column's value
// follows from the object's rank by address, so each can be checked.
DumpRecord paged_object(std::size_t rank, std::size_t count) {
  static const std::string kFiles[] = {"app/a.rb", "app/b.rb", "lib/c.rb"};
  DumpRecord record;
  record.kind = RecordKind::kObject;
  record.address = Address{0x7f0000000000} + 40 * rank;
  record.type = rank % 3 ? ObjectType::kArray : ObjectType::kString;
  record.memsize = 40 + rank % 13;
  record.value_hash = static_cast<std::uint32_t>(rank * 2654435761u) | 1;
  record.has_length = true;
  record.length = rank % 17;
  record.file = kFiles[rank % 3];
  record.line = rank % 1000;
  record.has_line = true;
  record.references = {Address{0x7f0000000000} + 40 * ((rank + 1) % count)};
  return record;
}

}  // namespace

TEST_CASE("a dump of descending pages sorts by moving page runs: every column follows",
          "[heap_builder]") {
  // Enough objects that every column is mapped (Column::trade_storage takes
  // the sorted copy's buffer instead of copying it back), in one builder
  // and in two (a split load, with its hole), on one thread and on two.
  constexpr std::size_t kCount = std::size_t{1} << 20, kPage = 409;
  std::vector<std::size_t> file_order;
  for (std::size_t page = (kCount + kPage - 1) / kPage; page-- > 0;)
    for (std::size_t rank = page * kPage; rank < std::min(kCount, (page + 1) * kPage); ++rank)
      file_order.push_back(rank);
  std::vector<std::size_t> position(kCount);  // of each rank in the file
  for (std::size_t k = 0; k < kCount; ++k) position[file_order[k]] = k;
  for (LoadMode mode : {LoadMode::kFull, LoadMode::kIdentityOnly}) {
    for (bool split : {false, true}) {
      HeapBuilder first(mode), later(mode);
      first.reserve(kCount, kCount);
      later.reserve(kCount / 2, kCount / 2);
      for (std::size_t k = 0; k < kCount; ++k) {
        const std::size_t rank = file_order[k];
        (split && k >= kCount / 3 ? later : first)
            .add_object(paged_object(rank, kCount), std::uint64_t{300} * k);
      }
      if (split) first.absorb(std::move(later));
      auto heap = first.finish(LoadReport{}, std::chrono::steady_clock::now(), nullptr, nullptr,
                               /*two_threads=*/split);
      INFO((mode == LoadMode::kFull ? "full" : "identity-only") << (split ? ", split" : ""));
      REQUIRE(heap->size() == kCount);
      CHECK(heap->report().duplicate_addresses == 0);
      for (ObjectIndex i = 0; i < kCount; ++i) {
        const DumpRecord expected = paged_object(i, kCount);
        REQUIRE(heap->address(i) == expected.address);
        REQUIRE(heap->type(i) == expected.type);
        REQUIRE(heap->memsize(i) == expected.memsize);
        REQUIRE(heap->value_hash(i) == expected.value_hash);
        REQUIRE(heap->length(i) == std::optional<std::uint32_t>(expected.length));
        REQUIRE(heap->file(i) == expected.file);
        REQUIRE(heap->line(i) == expected.line);
        if (mode == LoadMode::kFull) {
          REQUIRE(heap->line_offset(i) == std::uint64_t{300} * position[i]);
          REQUIRE(heap->references(i).size() == 1);
          REQUIRE(heap->references(i)[0] == (i + 1) % kCount);
        }
      }
    }
  }
}
