#include "core/graph/sample_split.h"

#include <catch2/catch.hpp>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// Metrics with two backends (Hashes), each holding two samples; a log Array
// holding entry Arrays, each holding one sample.
std::shared_ptr<const Heap> heap() {
  return load_text(join_lines({
      class_line("0x10", "Metrics", {"0x100", "0x200", "0x300"}),
      class_line("0x11", "Hash"),
      class_line("0x12", "Array"),
      class_line("0x13", "Sample"),
      object_line({"0x100", "HASH", "0x11", {"0x1000", "0x1010"}}),
      object_line({"0x200", "HASH", "0x11", {"0x2000", "0x2010"}}),
      object_line({"0x300", "ARRAY", "0x12", {"0x310", "0x320"}}),
      object_line({"0x310", "ARRAY", "0x12", {"0x3000"}}),
      object_line({"0x320", "ARRAY", "0x12", {"0x3010"}}),
      object_line({"0x1000", "OBJECT", "0x13"}),
      object_line({"0x1010", "OBJECT", "0x13"}),
      object_line({"0x2000", "OBJECT", "0x13"}),
      object_line({"0x2010", "OBJECT", "0x13"}),
      object_line({"0x3000", "OBJECT", "0x13"}),
      object_line({"0x3010", "OBJECT", "0x13"}),
      root_line("vm", {"0x10"}),
  }));
}

std::vector<ObjectIndex> indices(const Heap& h, const std::vector<std::string>& addresses) {
  std::vector<ObjectIndex> out;
  for (const auto& address : addresses) out.push_back(index_of(h, address));
  return out;
}

}  // namespace

TEST_CASE("samples in two containers split, one group per container", "[sample_split]") {
  auto h = heap();
  const auto samples = indices(*h, {"0x1000", "0x2000", "0x1010", "0x2010"});
  const SampleSplit split = split_samples(*h, samples);
  REQUIRE(split.split);
  REQUIRE(split.groups.size() == 2);
  CHECK(h->address(split.groups[0].container) == 0x100);
  CHECK(split.groups[0].samples == indices(*h, {"0x1000", "0x1010"}));
  CHECK(h->address(split.groups[1].container) == 0x200);
}

TEST_CASE("samples alone under their meeting point are not split", "[sample_split]") {
  auto h = heap();
  CHECK_FALSE(split_samples(*h, indices(*h, {"0x1000", "0x1010"})).split);
  // One entry Array per sample, all in one log: the log accumulates them.
  CHECK_FALSE(split_samples(*h, indices(*h, {"0x3000", "0x3010"})).split);
}
