#include "tests/core/same_heap.h"

#include <catch2/catch.hpp>
#include <vector>

namespace heapleak::test {

void require_same_heap(const Heap& a, const Heap& b, bool same_file) {
  REQUIRE(a.size() == b.size());
  // Identity-only heaps have no edges or record offsets to compare (nor to read).
  REQUIRE(a.has_edges() == b.has_edges());
  for (ObjectIndex i = 0; i < a.size(); ++i) {
    INFO("object " << i);
    REQUIRE(a.address(i) == b.address(i));
    REQUIRE(a.type(i) == b.type(i));
    REQUIRE(a.class_index(i) == b.class_index(i));
    REQUIRE(a.class_name(i) == b.class_name(i));
    REQUIRE(a.own_name(i) == b.own_name(i));
    REQUIRE(a.memsize(i) == b.memsize(i));
    REQUIRE(a.value_hash(i) == b.value_hash(i));
    REQUIRE(a.first_ref(i) == b.first_ref(i));
    REQUIRE(a.length(i) == b.length(i));
    REQUIRE(a.file(i) == b.file(i));
    REQUIRE(a.line(i) == b.line(i));
    REQUIRE(a.method(i) == b.method(i));
    REQUIRE(a.generation(i) == b.generation(i));
    if (!a.has_edges()) continue;
    REQUIRE(a.line_offset(i) == b.line_offset(i));
    auto ra = a.references(i), rb = b.references(i);
    REQUIRE(std::vector<ObjectIndex>(ra.begin(), ra.end()) ==
            std::vector<ObjectIndex>(rb.begin(), rb.end()));
    auto ia = a.referrers(i), ib = b.referrers(i);
    REQUIRE(std::vector<ObjectIndex>(ia.begin(), ia.end()) ==
            std::vector<ObjectIndex>(ib.begin(), ib.end()));
  }
  // The shape table (Ruby 3.2+), which names the ivars on paths.
  CHECK(a.shapes().parent == b.shapes().parent);
  CHECK(a.shapes().kind == b.shapes().kind);
  REQUIRE(a.shapes().edge_name.size() == b.shapes().edge_name.size());
  for (std::size_t id = 0; id < a.shapes().edge_name.size(); ++id) {
    CHECK(a.interned(a.shapes().edge_name[id]) == b.interned(b.shapes().edge_name[id]));
  }
  REQUIRE(a.has_allocation_info() == b.has_allocation_info());
  REQUIRE(a.roots().size() == b.roots().size());
  for (std::size_t k = 0; k < a.roots().size(); ++k) {
    CHECK(a.roots()[k].name == b.roots()[k].name);
    CHECK(a.roots()[k].targets == b.roots()[k].targets);
  }
  const LoadReport &x = a.report(), &y = b.report();
  CHECK(x.path == y.path);
  CHECK(x.gzip == y.gzip);
  CHECK(x.file_bytes == y.file_bytes);
  CHECK(x.stream_bytes == y.stream_bytes);
  CHECK(x.lines == y.lines);
  CHECK(x.objects == y.objects);
  CHECK(x.root_records == y.root_records);
  CHECK(x.shapes == y.shapes);
  CHECK(x.broken_lines == y.broken_lines);
  CHECK(x.first_broken_lines == y.first_broken_lines);
  CHECK(x.first_broken_reasons == y.first_broken_reasons);
  CHECK(x.duplicate_addresses == y.duplicate_addresses);
  CHECK(x.missing_references == y.missing_references);
  CHECK(x.references == y.references);
  CHECK(x.traced == y.traced);
  CHECK(x.edges_built == y.edges_built);
  CHECK(x.ends_mid_line == y.ends_mid_line);
  CHECK(x.gzip_truncated == y.gzip_truncated);
  CHECK(x.long_lines == y.long_lines);
  if (same_file) CHECK(x.identity == y.identity);
  CHECK(a.bytes_used() == b.bytes_used());
  REQUIRE((a.gzip_index() == nullptr) == (b.gzip_index() == nullptr));
  if (a.gzip_index()) {
    REQUIRE(a.gzip_index()->points.size() == b.gzip_index()->points.size());
    for (std::size_t k = 0; k < a.gzip_index()->points.size(); ++k) {
      const auto &p = a.gzip_index()->points[k], &q = b.gzip_index()->points[k];
      CHECK(p.out == q.out);
      CHECK(p.in == q.in);
      CHECK(p.bits == q.bits);
      CHECK(p.window == q.window);
    }
  }
}

}  // namespace heapleak::test
