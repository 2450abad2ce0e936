// A and C streamed against B (core/diagnosis/other_dump.h, as the CLI reads
// them) give the diff and the rows A and C loaded give; their heaps are read
// only by the passes that need more than what they say of B's objects (a
// compaction's count by content, objects moved between B and C), once, and
// never by a diff that needs none of them.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/other_dump.h"
#include "core/diagnosis/streamed_counterparts.h"
#include "core/explain/explain_pipeline.h"
#include "core/loading/loader.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

std::shared_ptr<const Heap> load(const std::string& path, LoadMode mode) {
  LoadOptions options;
  options.mode = mode;
  return load_heap(path, options).value();
}

// `path` streamed against `target`, its heap loaded identity-only when a pass asks.
std::unique_ptr<OtherDump> stream_against(const Heap& target, const std::string& path) {
  auto counterparts = stream_counterparts(target, path);
  REQUIRE(counterparts.has_value());
  return std::make_unique<OtherDump>(std::move(*counterparts),
                                     [path] { return load(path, LoadMode::kIdentityOnly); });
}

void check_same_diff(const LeakDiff& got, const LeakDiff& want) {
  CHECK(got.leaked == want.leaked);
  CHECK(got.total_memsize == want.total_memsize);
  CHECK(got.rule == want.rule);
  CHECK(got.compacted == want.compacted);
  CHECK(got.moved_later == want.moved_later);
  CHECK(got.moved_unmatched == want.moved_unmatched);
  CHECK(got.baseline_survival == want.baseline_survival);
  CHECK(got.later_survival == want.later_survival);
  CHECK(got.warnings == want.warnings);
  REQUIRE(got.grown.size() == want.grown.size());
  for (std::size_t k = 0; k < got.grown.size(); ++k) {
    CHECK(got.grown[k].object == want.grown[k].object);
    CHECK(got.grown[k].baseline == want.grown[k].baseline);
    CHECK(got.grown[k].later == want.grown[k].later);
    CHECK(got.grown[k].bytes_baseline == want.grown[k].bytes_baseline);
    CHECK(got.grown[k].bytes_later == want.grown[k].bytes_later);
  }
}

// The diff of three dumps' texts with A and C held (loaded identity-only)
// and with them streamed from their files.
struct Diffs {
  Diffs(const std::string& a_text, const std::string& b_text, const std::string& c_text)
      : a_file(a_text), c_file(c_text), b(load_text(b_text)) {
    const auto a = load(a_file.path(), LoadMode::kIdentityOnly);
    const auto c = load(c_file.path(), LoadMode::kIdentityOnly);
    a_streamed = stream_against(*b, a_file.path());
    c_streamed = stream_against(*b, c_file.path());
    held = diff_heaps(*a, *b, c.get());
    this->streamed = diff_other_dumps(*a_streamed, *b, c_streamed.get());
  }
  TempFile a_file, c_file;
  std::shared_ptr<const Heap> b;
  std::unique_ptr<OtherDump> a_streamed, c_streamed;
  LeakDiff held, streamed;
};

std::string fixture(const std::string& name) {
  return std::string(HEAPLEAK_TEST_DATA_DIR) + "/" + name;
}

}  // namespace

TEST_CASE("streamed A and C: the rbheap series' diff and rows, no heap read", "[streamed]") {
  const std::string a_path = fixture("rbheap-3dump/heap1.jsonl.gz");
  const std::string c_path = fixture("rbheap-3dump/heap3.jsonl.gz");
  const auto b = load(fixture("rbheap-3dump/heap2.jsonl.gz"), LoadMode::kFull);
  const auto a = load(a_path, LoadMode::kIdentityOnly);
  const auto c = load(c_path, LoadMode::kIdentityOnly);
  const auto a_streamed = stream_against(*b, a_path);
  const auto c_streamed = stream_against(*b, c_path);

  ExplainInput held;
  held.dumps = {a.get(), b.get(), c.get()};
  ExplainInput stream;
  stream.dumps = {nullptr, b.get(), nullptr};
  stream.others = {a_streamed.get(), nullptr, c_streamed.get()};
  const ExplainOutcome want = explain_leaks(std::move(held));
  const ExplainOutcome got = explain_leaks(std::move(stream));
  check_same_diff(got.diff, want.diff);
  CHECK_FALSE(want.diff.leaked.empty());
  REQUIRE(got.rows.leaks.size() == want.rows.leaks.size());
  for (std::size_t k = 0; k < got.rows.leaks.size(); ++k) {
    const LeakCluster& x = got.rows.leaks[k];
    const LeakCluster& y = want.rows.leaks[k];
    CHECK(x.key == y.key);
    CHECK(x.signature == y.signature);
    CHECK(x.count == y.count);
    CHECK(x.retained == y.retained);
    CHECK(x.growth.baseline == y.growth.baseline);
    CHECK(x.growth.later == y.growth.later);
  }
  CHECK(got.rows.noise.size() == want.rows.noise.size());
  CHECK(got.series.findings.size() == want.series.findings.size());
  // What A and C said of B's objects was enough.
  CHECK(a_streamed->loads() == 0);
  CHECK(c_streamed->loads() == 0);
}

TEST_CASE("streamed A and C: compacted dumps read both heaps once, for the count by content",
          "[streamed]") {
  const Diffs d(packed_strings_dump(0x100000, 0, 0), packed_strings_dump(0x200000, 10, 5),
                packed_strings_dump(0x300000, 10, 0));
  const LeakDiff& got = d.streamed;
  const LeakDiff& want = d.held;
  CHECK(want.compacted);
  CHECK(want.total_count == 10);
  check_same_diff(got, want);
  CHECK(d.a_streamed->loads() == 1);
  CHECK(d.c_streamed->loads() == 1);
}

TEST_CASE("streamed C: objects moved between B and C read C's heap once", "[streamed]") {
  // 1600 old Strings, 16 to a 64 KiB page; in C the first 160 (ten pages)
  // and the leak moved elsewhere (a compaction between B and C). Strings as
  // Ruby writes them: their text and its bytesize.
  auto value = [](const std::string& v) {
    return "\"value\":\"" + v + "\",\"bytesize\":" + std::to_string(v.size());
  };
  auto dump = [&](int leaked, bool moved) {
    std::vector<std::string> lines;
    for (int k = 0; k < 1600; ++k) {
      const std::uint64_t home = 0x1000000 + 0x1000 * std::uint64_t(k);
      const std::uint64_t at = moved && k < 160 ? 0x5000000 + 0x28 * k : home;
      lines.push_back(
          object_line({format_address(at), "STRING", "", {}, value("old " + std::to_string(k))}));
    }
    for (int k = 0; k < leaked; ++k) {
      const std::uint64_t at = (moved ? 0x7000000 : 0x3000000) + 0x28 * std::uint64_t(k);
      lines.push_back(
          object_line({format_address(at), "STRING", "", {}, value("leak " + std::to_string(k))}));
    }
    return join_lines(lines);
  };
  const Diffs d(dump(0, false), dump(10, false), dump(12, true));
  CHECK(d.held.moved_later);
  CHECK(d.held.leaked.size() == 10);  // each leaked String's text is its own: found again
  check_same_diff(d.streamed, d.held);
  CHECK(d.a_streamed->loads() == 0);
  CHECK(d.c_streamed->loads() == 1);
}

TEST_CASE("a streamed dump whose heap cannot be read says so", "[streamed]") {
  const TempFile a_file(join_lines({object_line({"0x100", "STRING", "", {}, "\"value\":\"x\""})}));
  const auto b =
      load_text(join_lines({object_line({"0x100", "STRING", "", {}, "\"value\":\"x\""})}));
  auto counterparts = stream_counterparts(*b, a_file.path());
  REQUIRE(counterparts.has_value());
  const OtherDump failing(std::move(*counterparts), []() -> std::shared_ptr<const Heap> {
    throw std::runtime_error("A.json: the file changed since it was read");
  });
  CHECK(failing.heap_if_loaded() == nullptr);
  CHECK_THROWS_WITH(failing.heap(), Catch::Contains("changed since it was read"));
  CHECK(failing.loads() == 0);
}
