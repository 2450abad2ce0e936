// A plain dump loaded in two halves at once (LoadOptions::split_from_bytes)
// must give the very heap one pass gives: every column, name id, root,
// shape and count, whatever crosses the split.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/loading/loader.h"
#include "tests/core/same_heap.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

std::string hex(int n) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%x", n);
  return text;
}

std::string traced(const std::string& file, int line) {
  return "\"file\":\"" + file + "\", \"line\":" + std::to_string(line) +
         ", \"method\":\"build\", \"generation\":" + std::to_string(line % 7) + ", \"memsize\":40";
}

std::string shape_line(int id, int parent, const std::string& edge) {
  return "{\"address\":\"" + hex(0x900000 + id) +
         "\", \"type\":\"SHAPE\", \"id\":" + std::to_string(id) +
         ", \"parent_id\":" + std::to_string(parent) +
         ", \"shape_type\":\"IVAR\", \"edge_name\":\"" + edge + "\", \"memsize\":40}";
}

// `filler` objects between a head and a tail of lines, so that the split
// (past the middle) falls among the filler. Objects of the filler point to
// their neighbours, the tail's to the head's.
std::string dump(const std::vector<std::string>& head, int filler, bool traced_filler,
                 const std::vector<std::string>& tail) {
  std::vector<std::string> lines = head;
  for (int k = 0; k < filler; ++k) {
    const std::string extra = traced_filler ? traced("app/filler.rb", k % 50) : "\"memsize\":40";
    lines.push_back(object_line({hex(0x10000 + 40 * k),
                                 k % 3 ? "STRING" : "ARRAY",
                                 "0x20",
                                 {hex(0x10000 + 40 * ((k + 1) % filler))},
                                 extra}));
  }
  lines.insert(lines.end(), tail.begin(), tail.end());
  return join_lines(lines);
}

// Beyond the accessors require_same_heap compares: the ids themselves, so
// that a cache image of either is the same image.
void check_same_ids(const Heap& one, const Heap& two) {
  const HeapColumns& a = one.columns();
  const HeapColumns& b = two.columns();
  REQUIRE(a.names.size() == b.names.size());
  for (std::uint32_t id = 0; id < a.names.size(); ++id) CHECK(a.names.at(id) == b.names.at(id));
  CHECK(std::equal(a.own_name.begin(), a.own_name.end(), b.own_name.begin(), b.own_name.end()));
  CHECK(std::equal(a.file.begin(), a.file.end(), b.file.begin(), b.file.end()));
  CHECK(std::equal(a.method.begin(), a.method.end(), b.method.begin(), b.method.end()));
  CHECK(a.shapes.edge_name == b.shapes.edge_name);
}

// Loads `text` in one pass and split in two; checks the split happened
// before `tail_marker` (a text in the second half) and both heaps agree.
std::shared_ptr<const Heap> check_split_load(const std::string& text,
                                             const std::string& tail_marker, LoadMode mode) {
  TempFile file(text);
  const std::uint64_t split = split_point(file.path(), text.size());
  REQUIRE(split > 0);
  REQUIRE(text[split - 1] == '\n');
  REQUIRE(text.find(tail_marker) > split);
  LoadOptions one_pass;
  one_pass.mode = mode;
  one_pass.block_size = 64 << 10;  // many blocks in each half
  one_pass.max_line_bytes = 1 << 10;
  LoadOptions halves = one_pass;
  halves.split_from_bytes = 0;
  auto one = load_heap(file.path(), one_pass);
  auto two = load_heap(file.path(), halves);
  REQUIRE(one);
  REQUIRE(two);
  require_same_heap(**one, **two);
  check_same_ids(**one, **two);
  return *two;
}

const std::vector<std::string> kHead = {
    root_line("vm", {"0x20", "0x10000"}),
    class_line("0x20", "Item"),
    shape_line(0, 0, ""),
    shape_line(1, 0, "@name"),
    object_line({"0x30", "DATA", "0x20", {}, "\"struct\":\"mutex\", \"memsize\":88"}),
    "this line is not JSON",
};

}  // namespace

TEST_CASE("a dump split in two loads the heap one pass loads, whatever crosses the split",
          "[loader][split]") {
  // Tracing starts in the second half; its names, classes, roots and shapes
  // are new or already seen in the first; broken and long lines (past the
  // 64 KiB blocks) in it are numbered after the first half's lines, and its
  // last line has no newline.
  const std::vector<std::string> tail = {
      class_line("0x40", "Tail::Model"),
      object_line({"0x50", "OBJECT", "0x40", {"0x30", "0x20", "0x30"}, traced("app/tail.rb", 3)}),
      object_line({"0x60", "DATA", "0x20", {"0x404040"}, "\"struct\":\"mutex\", \"memsize\":88"}),
      object_line({"0x30", "STRING", "0x20", {}, "\"value\":\"duplicate\", \"memsize\":40"}),
      root_line("vm", {"0x50"}),
      root_line("global_tbl", {"0x60", "0x999999"}),
      shape_line(1, 0, "@name"),
      shape_line(2, 1, "@tail"),
      "{\"address\":\"0x70\", \"type\":\"OBJE",
      object_line({"0x80", "STRING", "0x20", {}, "\"value\":\"" + std::string(300000, 'x') + "\""}),
      object_line({"0x90", "HASH", "0x20", {"0x50"}, "\"size\":1, " + traced("app/tail.rb", 9)}),
  };
  std::string text = dump(kHead, 12000, false, tail);  // the filler outweighs the long line
  text.pop_back();  // no final newline: the last line is cut, and kept
  const auto heap = check_split_load(text, "Tail::Model", LoadMode::kFull);
  const LoadReport& report = heap->report();
  CHECK(report.long_lines == 1);
  CHECK(report.broken_lines == 3);  // not JSON, cut short, too long
  CHECK(report.traced);
  CHECK(report.duplicate_addresses == 1);
  CHECK(report.missing_references == 2);
  CHECK(heap->roots().size() == 2);
  CHECK(heap->shapes().kind.size() == 3);
  check_split_load(text, "Tail::Model", LoadMode::kIdentityOnly);
}

TEST_CASE("a split dump traced only in its first half gets zeros after", "[loader][split]") {
  const std::vector<std::string> tail = {
      object_line({"0x50", "OBJECT", "0x20", {"0x10000"}, "\"memsize\":40"}),
      object_line({"0x60", "STRING", "", {}, "\"value\":\"untraced tail\""}),
  };
  const std::string text = dump(kHead, 3000, true, tail);
  check_split_load(text, "untraced tail", LoadMode::kFull);
  check_split_load(text, "untraced tail", LoadMode::kIdentityOnly);
}

TEST_CASE("a split load's finish on two threads builds the edges one thread builds",
          "[loader][split]") {
  // Enough objects for the finish steps to take both cores (run_in_halves
  // starts a thread from 65,536 items), written out of address order so the
  // permutation moves them. Each points to its neighbours, one of them twice,
  // and to an object the dump lacks (every 5th); some are pointed to by
  // objects of both halves.
  constexpr int kObjects = 150000;
  auto address = [](int k) { return hex(0x100000 + 40 * ((k * 7919) % kObjects)); };
  std::vector<std::string> lines = {class_line("0x20", "Item")};
  for (int k = 0; k < kObjects; ++k) {
    std::vector<std::string> refs = {address((k + 1) % kObjects),
                                     address((k + kObjects - 1) % kObjects),
                                     address((k + 1) % kObjects), address(k / 2)};
    if (k % 5 == 0) refs.push_back(hex(0x7000000 + k));
    lines.push_back(
        object_line({address(k), k % 2 ? "ARRAY" : "HASH", "0x20", refs, "\"memsize\":40"}));
  }
  lines.push_back(root_line("vm", {address(0), "0x20"}));
  const auto heap = check_split_load(join_lines(lines), "\"vm\"", LoadMode::kFull);
  CHECK(heap->size() == kObjects + 1);
  CHECK(heap->report().missing_references == kObjects / 5);
  // Every object has three distinct targets (k / 2 may be a neighbour, or itself).
  CHECK(heap->report().references >= std::uint64_t{2} * kObjects);
}

TEST_CASE("no newline near the middle: no split, one pass", "[loader][split]") {
  // One line of 3 MiB straddles the middle.
  const std::string text = join_lines(
      {class_line("0x20", "Item"),
       object_line(
           {"0x30", "STRING", "0x20", {}, "\"value\":\"" + std::string(3 << 20, 'y') + "\""}),
       object_line({"0x40", "OBJECT", "0x20", {"0x30"}})});
  TempFile file(text);
  CHECK(split_point(file.path(), text.size()) == 0);
  LoadOptions options;
  options.split_from_bytes = 0;
  auto heap = load_heap(file.path(), options);
  REQUIRE(heap);
  CHECK((*heap)->size() == 3);
  CHECK((*heap)->report().broken_lines == 0);
}

TEST_CASE("a split load stops both halves on cancel and on the budget", "[loader][split]") {
  const std::string text = dump(kHead, 40000, true, {class_line("0x40", "Tail")});
  TempFile file(text);
  REQUIRE(split_point(file.path(), text.size()) > 0);
  LoadOptions options;
  options.split_from_bytes = 0;
  options.block_size = 64 << 10;
  {
    std::atomic<bool> cancel{false};
    LoadControl control;
    control.cancel = &cancel;
    control.progress = [&](std::uint64_t, std::uint64_t) { cancel = true; };
    auto heap = load_heap(file.path(), options, control);
    REQUIRE_FALSE(heap);
    CHECK(heap.error().reason == ErrorReason::kCancelled);
  }
  {
    // Both halves' bytes count: the charge sees more than the first half read.
    std::uint64_t most = 0;
    LoadControl control;
    control.charge = [&](std::uint64_t bytes) {
      most = std::max(most, bytes);
      return bytes < estimate_peak_bytes(text.size() * 3 / 4);
    };
    auto heap = load_heap(file.path(), options, control);
    REQUIRE_FALSE(heap);
    CHECK(heap.error().reason == ErrorReason::kOverBudget);
    CHECK(most >= estimate_peak_bytes(text.size() * 3 / 4));
  }
}
