#include "results/dump_files.h"

#include <boost/json/array.hpp>
#include <catch2/catch.hpp>

using heapleak::results::dump_files_json;
namespace json = boost::json;

TEST_CASE("dump_files_json names the dumps by their file names", "[dump_files]") {
  CHECK(dump_files_json({"/tmp/run/A.json", "/tmp/run/B.json.gz", "C.json"}) ==
        json::object{{"baseline", "A.json"}, {"target", "B.json.gz"}, {"later", "C.json"}});
  CHECK(dump_files_json({"/x/A.json", "/y/B.json"}) ==
        json::object{{"baseline", "A.json"}, {"target", "B.json"}});
}

TEST_CASE("dump_files_json gives whole paths when two dumps share a name", "[dump_files]") {
  // One shared name makes every dump's whole path shown, not only the pair's.
  CHECK(dump_files_json({"/one/heap.json", "/two/heap.json", "/three/C.json"}) ==
        json::object{{"baseline", "/one/heap.json"},
                     {"target", "/two/heap.json"},
                     {"later", "/three/C.json"}});
  CHECK(dump_files_json({"run/A.json", "A.json"}) ==
        json::object{{"baseline", "run/A.json"}, {"target", "A.json"}});
}

TEST_CASE("dump_files_json names a series D1..DN as D1, D(N-1), DN and every dump",
          "[dump_files]") {
  const json::object files = dump_files_json({"s/D1.json", "s/D2.json", "s/D3.json", "s/D4.json"});
  CHECK(files == json::object{{"baseline", "D1.json"},
                              {"target", "D3.json"},
                              {"later", "D4.json"},
                              {"dumps", json::array{"D1.json", "D2.json", "D3.json", "D4.json"}}});
  // A name shared anywhere in the series shows every whole path.
  const json::object shared = dump_files_json({"a/D.json", "b/E.json", "c/F.json", "d/D.json"});
  CHECK(shared.at("baseline") == "a/D.json");
  CHECK(shared.at("dumps").as_array().back() == "d/D.json");
}
