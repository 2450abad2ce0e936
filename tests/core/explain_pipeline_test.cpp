// explain's pipeline (core/explain/explain_pipeline.h): the passes run in the listed
// order, each timed; one switched off by name changes what it is for and
// nothing it is not for; check's two-step run gives explain's rows.
#include "core/explain/explain_pipeline.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// An old Cache whose Array gains Strings A -> B -> C (the leak), and a
// request Hash the machine stack holds in B only, over a String alive in C:
// the later-holders pass moves that String out of the leak rows.
std::string dump(int which) {
  std::vector<std::string> lines = {class_line("0x10", "Cache", {"0x100"}),
                                    class_line("0x11", "Hash"), class_line("0x12", "Array"),
                                    class_line("0x13", "String")};
  std::vector<std::string> held;
  for (int k = 0; k < 10 * which; ++k) {
    const std::string address = "0x" + std::to_string(1000 + k);
    held.push_back(address);
    lines.push_back(object_line({address, "STRING", "0x13", {}, R"("memsize":40)"}));
  }
  lines.push_back(
      object_line({"0x100", "ARRAY", "0x12", held, "\"length\":" + std::to_string(held.size())}));
  std::vector<std::string> machine;
  if (which >= 1)
    lines.push_back(object_line({"0x500", "STRING", "0x13", {}, R"("value":"ctx","memsize":40)"}));
  if (which == 1) {
    machine.push_back("0x700");
    lines.push_back(object_line({"0x700", "HASH", "0x11", {"0x500"}, R"("size":1,"memsize":160)"}));
  }
  lines.push_back(root_line("vm", {"0x10"}));
  if (!machine.empty()) lines.push_back(root_line("machine_context", machine));
  return join_lines(lines);
}

struct Dumps {
  std::shared_ptr<const Heap> a, b, c;
  ExplainInput input() const {
    ExplainInput in;
    in.dumps = {a.get(), b.get(), c.get()};
    return in;
  }
};

Dumps dumps() {
  LoadOptions light;
  light.mode = LoadMode::kIdentityOnly;
  return {load_text(dump(0), light), load_text(dump(1)), load_text(dump(2), light)};
}

std::vector<std::string> ran(const ExplainOutcome& outcome) {
  std::vector<std::string> names;
  for (const PassTime& pass : outcome.times)
    if (!pass.skipped) names.push_back(pass.name);
  return names;
}

}  // namespace

TEST_CASE("explain runs its passes in the listed order, each timed", "[explain_pipeline]") {
  const Dumps d = dumps();
  const ExplainOutcome out = explain_leaks(d.input());
  const std::vector<std::string> order = {
      "identity match", "leaked objects",   "grown objects", "diff groups",
      "series check",   "untraced warning", "holders",       "later holders",
      "born holders",   "rows by holder",   "sizes",         "paths",
      "growth",         "replaced entries", "names",         "verdicts",
      "grown rows",     "folding",          "ranking"};
  CHECK(ran(out) == order);  // three dumps: no series growth
  for (const PassTime& pass : out.times) CHECK(pass.seconds >= 0);
  REQUIRE(out.rows.leaks.size() == 1);
  CHECK(out.rows.leaks[0].key == "Array in Cache");
  CHECK(out.rows.leaks[0].count == 10);
  REQUIRE(out.rows.noise.size() == 1);
  CHECK(out.rows.noise[0].noise == NoiseReason::kTransientHolder);
}

TEST_CASE("a pass switched off by name does only what it is for", "[explain_pipeline]") {
  const Dumps d = dumps();
  ExplainInput input = d.input();
  input.skipped = {"later holders"};
  const ExplainOutcome out = explain_leaks(std::move(input));
  const auto names = ran(out);
  CHECK(std::find(names.begin(), names.end(), "later holders") == names.end());
  // The String the request held in B only is no longer told apart ...
  CHECK(std::none_of(out.rows.noise.begin(), out.rows.noise.end(), [](const LeakCluster& row) {
    return row.noise == NoiseReason::kTransientHolder;
  }));
  // ... and the leak row stays what it was.
  REQUIRE_FALSE(out.rows.leaks.empty());
  CHECK(std::any_of(out.rows.leaks.begin(), out.rows.leaks.end(), [](const LeakCluster& row) {
    return row.key == "Array in Cache" && row.count == 10;
  }));
}

TEST_CASE("rows of a diff made already are explain's rows", "[explain_pipeline]") {
  const Dumps d = dumps();
  const ExplainOutcome whole = explain_leaks(d.input());
  ExplainInput diff_only = d.input();
  diff_only.rows = false;
  ExplainOutcome first = explain_leaks(std::move(diff_only));
  CHECK(first.rows.leaks.empty());
  CHECK(ran(first).back() == "untraced warning");
  const LeakClusters rows = cluster_leaks(*d.a, *d.b, d.c.get(), first.diff);
  REQUIRE(rows.leaks.size() == whole.rows.leaks.size());
  REQUIRE(rows.noise.size() == whole.rows.noise.size());
  for (std::size_t k = 0; k < rows.leaks.size(); ++k) {
    CHECK(rows.leaks[k].signature == whole.rows.leaks[k].signature);
    CHECK(rows.leaks[k].retained == whole.rows.leaks[k].retained);
  }
}

TEST_CASE("nothing new: no row passes, and no analyses of B", "[explain_pipeline]") {
  LoadOptions light;
  light.mode = LoadMode::kIdentityOnly;
  auto a = load_text(dump(1), light);
  auto b = load_text(dump(1));
  ExplainInput input;
  input.dumps = {a.get(), b.get(), a.get()};
  const ExplainOutcome out = explain_leaks(std::move(input));
  CHECK(out.diff.leaked.empty());
  CHECK(ran(out).back() == "untraced warning");
  CHECK_FALSE(b->has_dominators());
  CHECK_FALSE(b->has_root_paths());
}
