// heapleak export's tables on a small Ruby 3.4 dump (records from
// ivar_names_test.cpp): rows per table, the class edge, NULLs left out, and
// --ivar-names naming each reference from the shapes. DuckDB reads real
// exports in tests/duckdb/export.test.mjs.
#include "core/reports/heap_tables.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/loading/loader.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

const char* kDump =
    R"({"address":"0x2330048", "type":"SHAPE", "id":0, "depth":1, "shape_type":"ROOT", "edges":10, "memsize":168}
{"address":"0x2330090", "type":"SHAPE", "id":3, "parent_id":65535, "depth":1, "shape_type":"T_OBJECT", "edges":20, "memsize":296}
{"address":"0x2331590", "type":"SHAPE", "id":227, "parent_id":3, "depth":2, "shape_type":"IVAR","edge_name":"@a", "edges":1, "memsize":24}
{"address":"0x23315a8", "type":"SHAPE", "id":228, "parent_id":227, "depth":3, "shape_type":"IVAR","edge_name":"@b", "edges":2, "memsize":72}
{"address":"0x23315c0", "type":"SHAPE", "id":229, "parent_id":228, "depth":4, "shape_type":"IVAR","edge_name":"@c", "edges":0, "memsize":24}
{"type":"ROOT", "root":"vm", "references":["0x454a200"]}
{"address":"0x452bbd4", "type":"CLASS", "shape_id":0, "name":"AllHeap", "references":[], "memsize":500}
{"address":"0x454a200", "type":"OBJECT", "shape_id":229, "slot_size":20, "class":"0x452bbd4", "embedded":true, "ivars":3, "references":["0x452a914", "0x454a1b0", "0x452a874"], "memsize":20}
{"address":"0x452a914", "type":"STRING", "shape_id":0, "slot_size":80, "embedded":true, "coderange":"7bit", "memsize":80}
{"address":"0x454a1b0", "type":"ARRAY", "shape_id":0, "slot_size":20, "length":1, "embedded":true, "memsize":20}
{"address":"0x452a874", "type":"HASH", "shape_id":0, "slot_size":80, "size":1, "memsize":80}
)";

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct Exported {
  TempFile dump{kDump};
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "heapleak_heap_tables_test";
  std::shared_ptr<const Heap> heap;
  Exported() {
    auto loaded = load_heap(dump.path(), {});
    if (!loaded) FAIL("load failed: " << loaded.error().message);
    heap = *loaded;
  }
  ~Exported() { std::filesystem::remove_all(dir); }
  std::vector<ExportedTable> run(ExportOptions options) {
    auto tables = export_heap_tables(*heap, dir.string(), options);
    REQUIRE(tables);
    return *tables;
  }
};

}  // namespace

TEST_CASE("export writes the five tables, the class edge among the references", "[heap_tables]") {
  Exported exported;
  const auto tables = exported.run({});
  REQUIRE(tables.size() == 5);
  CHECK(tables[0].name == "heap_object");
  CHECK(tables[0].rows == 5);
  CHECK(tables[1].name == "heap_reference");
  CHECK(tables[1].rows == 4);  // three ivars and the class
  CHECK(tables[3].name == "heap_root");
  CHECK(tables[3].rows == 1);
  CHECK(tables[4].name == "heap_dominator");
  CHECK(tables[4].rows == 5);
  const std::string refs = slurp(exported.dir / "heap_reference.jsonl");
  const ObjectIndex holder = index_of(*exported.heap, "0x454a200");
  const ObjectIndex klass = index_of(*exported.heap, "0x452bbd4");
  const ObjectIndex string = index_of(*exported.heap, "0x452a914");
  CHECK(refs.find("{\"owner_id\":" + std::to_string(holder) +
                  ",\"owned_id\":" + std::to_string(string) + "}\n") != std::string::npos);
  CHECK(refs.find("{\"owner_id\":" + std::to_string(holder) + ",\"owned_id\":" +
                  std::to_string(klass) + ",\"via\":\"class\"}\n") != std::string::npos);
  const std::string objects = slurp(exported.dir / "heap_object.jsonl");
  // The holder: a root target whose retained bytes are its own, its class's
  // and its three ivars'.
  CHECK(objects.find("{\"id\":" + std::to_string(holder) +
                     ",\"address\":\"0x454a200\",\"type\":\"OBJECT\",\"name\":\"AllHeap\","
                     "\"class_id\":" +
                     std::to_string(klass) +
                     ",\"memsize\":20,\"root\":\"vm\",\"reachable\":true,\"retained\":700}\n") !=
        std::string::npos);
  const std::string classes = slurp(exported.dir / "heap_class.jsonl");
  CHECK(classes.find("{\"name\":\"AllHeap\",\"class_id\":" + std::to_string(klass) +
                     ",\"class_address\":\"0x452bbd4\",\"count\":1,\"self_bytes\":20,"
                     "\"reachable_count\":1,\"retained\":700}\n") != std::string::npos);
}

TEST_CASE("export --ivar-names names each reference from the holder's shape", "[heap_tables]") {
  Exported exported;
  exported.run(ExportOptions{TableFormat::kJsonLines, true});
  const std::string refs = slurp(exported.dir / "heap_reference.jsonl");
  const ObjectIndex holder = index_of(*exported.heap, "0x454a200");
  for (auto [target, ivar] :
       {std::pair{"0x452a914", "@a"}, std::pair{"0x454a1b0", "@b"}, std::pair{"0x452a874", "@c"}}) {
    CHECK(refs.find("{\"owner_id\":" + std::to_string(holder) +
                    ",\"owned_id\":" + std::to_string(index_of(*exported.heap, target)) +
                    ",\"via\":\"" + ivar + "\"}\n") != std::string::npos);
  }
}

TEST_CASE("export into a path that is a file says so", "[heap_tables]") {
  Exported exported;
  TempFile file{"x"};
  auto tables = export_heap_tables(*exported.heap, file.path(), {});
  REQUIRE_FALSE(tables);
  CHECK(tables.error().message.find("cannot create the directory") != std::string::npos);
}
