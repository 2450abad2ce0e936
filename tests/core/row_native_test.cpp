// What of a leak row's bytes is C memory (core/series/row_native.h), on small
// dumps: DATA objects' memsize beyond a 40-byte slot each, those whose
// memsize is known to under-count (the slot alone; zlib's streams), and the
// class named: the one whose objects under-count, not the most numerous.
#include "core/series/row_native.h"

#include <catch2/catch.hpp>

#include "test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

TEST_CASE("a row's DATA objects: bytes past their slots, under-counting ones, the class named",
          "[memory][native]") {
  auto heap = load_text(join_lines({
      class_line("0x10", "Zlib::Deflate"),
      class_line("0x20", "Thread::Mutex"),
      class_line("0x30", "Conn"),
      // Two streams (memsize 152: their struct, 112 B past the slot, while
      // zlib's state is unseen), three mutexes (a dsize: 80 B, 40 past the
      // slot), one Conn with no dsize (its slot alone), one String (not DATA).
      object_line({"0x1000", "DATA", "0x10", {}, "\"memsize\":152"}),
      object_line({"0x1028", "DATA", "0x10", {}, "\"memsize\":152"}),
      object_line({"0x1050", "DATA", "0x20", {}, "\"memsize\":80"}),
      object_line({"0x1078", "DATA", "0x20", {}, "\"memsize\":80"}),
      object_line({"0x10a0", "DATA", "0x20", {}, "\"memsize\":80"}),
      object_line({"0x10c8", "DATA", "0x30", {}, "\"memsize\":40"}),
      object_line({"0x10f0", "STRING", "", {}, "\"memsize\":4000"}),
  }));
  REQUIRE(heap);
  std::vector<ObjectIndex> objects;
  for (const char* address : {"0x1000", "0x1028", "0x1050", "0x1078", "0x10a0", "0x10c8", "0x10f0"})
    objects.push_back(index_of(*heap, address));
  const RowNative native = row_native(*heap, objects);
  CHECK(native.data_objects == 6);
  CHECK(native.native_bytes ==
        2 * 112 + 3 * 40);                     // 344: the Conn adds nothing, the String is no DATA
  CHECK(native.undercounted == 3);             // two streams (listed), the Conn (slot alone)
  CHECK(native.top_class == "Zlib::Deflate");  // under-counts most, though the mutexes are more
  CHECK(native.top_count == 2);

  // Only the String: nothing native.
  const RowNative none = row_native(*heap, std::vector<ObjectIndex>{index_of(*heap, "0x10f0")});
  CHECK(none.data_objects == 0);
  CHECK(none.top_class.empty());
}
