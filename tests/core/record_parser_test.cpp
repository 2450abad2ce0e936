#include "core/reading/record_parser.h"

#include <catch2/catch.hpp>
#include <string>

using namespace heapleak;

namespace {

// Parses one line the way the loader does: from a buffer with padding after it.
DumpRecord parse_line(const std::string& line) {
  static RecordParser parser;
  std::string buffer = line + std::string(64, ' ');
  DumpRecord record;
  parser.parse(buffer.data(), line.size(), buffer.size(), record);
  return record;
}

}  // namespace

TEST_CASE("an object record keeps the fields heapleak uses", "[record_parser]") {
  auto r = parse_line(
      R"({"address":"0x7ffe49045f20", "type":"OBJECT", "class":"0x7ffe49045ef8", "ivars":3, )"
      R"("references":["0x10", "0x20"], "file":"/tmp/dump.rb", "line":8, "method":"new", )"
      R"("generation":0, "memsize":40, "flags":{"wb_protected":true}})");
  REQUIRE(r.kind == RecordKind::kObject);
  CHECK(r.address == 0x7ffe49045f20);
  CHECK(r.type == ObjectType::kObject);
  CHECK(r.class_address == 0x7ffe49045ef8);
  CHECK(r.references == std::vector<Address>{0x10, 0x20});
  CHECK(r.file == "/tmp/dump.rb");
  CHECK(r.line == 8);
  CHECK(r.has_line);
  CHECK(r.method == "new");
  CHECK(r.has_generation);
  CHECK(r.generation == 0);
  CHECK(r.memsize == 40);
}

TEST_CASE("field order and separators do not matter", "[record_parser]") {
  auto a = parse_line(R"({"type":"STRING","address":"0x1","value":"x","memsize":40})");
  auto b =
      parse_line(R"({ "memsize" : 40 , "value" : "x" , "address" : "0x1" , "type" : "STRING" })");
  REQUIRE(a.kind == RecordKind::kObject);
  REQUIRE(b.kind == RecordKind::kObject);
  CHECK(a.value_hash == b.value_hash);
  CHECK(a.value_hash != 0);
  CHECK(parse_line(R"({"address":"0x1","type":"STRING","value":"y"})").value_hash != a.value_hash);
}

TEST_CASE("ROOT and SHAPE records are told apart from objects", "[record_parser]") {
  auto root = parse_line(R"({"type":"ROOT", "root":"vm", "references":["0x1", "0x2"]})");
  REQUIRE(root.kind == RecordKind::kRoot);
  CHECK(root.root_name == "vm");
  CHECK(root.references.size() == 2);
  auto shape =
      parse_line(R"({"address":"0x104dd0180", "type":"SHAPE", "id":12, "parent_id":2, "depth":3, )"
                 R"("shape_type":"IVAR","edge_name":"@foo", "edges":17, "memsize":568})");
  CHECK(shape.kind == RecordKind::kShape);
}

TEST_CASE("names of classes, DATA structs and IMEMO kinds", "[record_parser]") {
  CHECK(parse_line(R"({"address":"0x1","type":"CLASS","name":"Foo::Bar"})").own_name == "Foo::Bar");
  CHECK(parse_line(R"({"address":"0x1","type":"DATA","struct":"mutex"})").own_name == "mutex");
  CHECK(parse_line(R"({"address":"0x1","type":"IMEMO","imemo_type":"callcache"})").own_name ==
        "callcache");
  CHECK(parse_line(R"({"address":"0x1","type":"ZOMBIE","class":"0x2"})").type ==
        ObjectType::kZombie);
  CHECK(parse_line(R"({"address":"0x1","type":"NEWFANGLED"})").type == ObjectType::kUnknown);
}

TEST_CASE("FLOAT nan and inf values (quoted by Ruby) parse", "[record_parser]") {
  auto r = parse_line(
      R"({"address":"0x7fb1f80a5f08", "type":"FLOAT", "class":"0x7f", "frozen":true, "value":"nan", "memsize":40})");
  CHECK(r.kind == RecordKind::kObject);
  CHECK(r.value_hash != 0);
}

TEST_CASE("each kind of broken line is reported, not parsed", "[record_parser]") {
  const std::string nul_line = std::string(R"({"address":"0x1", "type":"OBJECT", "method":"f)") +
                               std::string(1, '\0') + R"(oo"})";
  const std::string bad_utf8 = "{\"address\":\"0x1\", \"type\":\"STRING\", \"value\":\"\xff\xfe\"}";
  const std::vector<std::string> broken = {
      nul_line,
      bad_utf8,
      R"({"address":"0x1", "type":"OBJE)",  // truncated
      "this is not json",
      R"(["an", "array"])",
      R"({"type":"OBJECT"})",                                       // no address
      R"({"address":"0x1"})",                                       // no type
      R"({"address":"0xzz", "type":"OBJECT"})",                     // address not hex
      R"({"address":"0x1", "type":"OBJECT", "references":"0x2"})",  // wrong field type
      R"({"address":"0x1", "type":"OBJECT", "memsize":"big"})",
      R"({"address":"0x1", "type":"OBJECT"} {"address":"0x2", "type":"OBJECT"})",
  };
  for (const auto& line : broken) {
    INFO(line);
    auto r = parse_line(line);
    CHECK(r.kind == RecordKind::kBroken);
    CHECK(r.broken_reason != nullptr);
  }
}

TEST_CASE("blank lines are neither records nor broken", "[record_parser]") {
  CHECK(parse_line("").kind == RecordKind::kBlank);
  CHECK(parse_line("   \r").kind == RecordKind::kBlank);
}

TEST_CASE("deeply nested JSON in an unused field does not crash", "[record_parser]") {
  std::string nested = std::string(2000, '[') + std::string(2000, ']');
  auto r = parse_line(R"({"address":"0x1", "type":"OBJECT", "junk":)" + nested + "}");
  CHECK((r.kind == RecordKind::kObject || r.kind == RecordKind::kBroken));
}

TEST_CASE("addresses, references and classes follow parse_address's rules exactly",
          "[record_parser]") {
  // The parser reads addresses eight digits at a time; every length, digit
  // case and bad byte at every position must agree with parse_address.
  std::vector<std::string> texts{"0x",
                                 "0x0",
                                 "0X1f",
                                 "0xABCDEF",
                                 "0x7ffe49045f20",
                                 "0x1234567",
                                 "0x12345678",
                                 "0x123456789",
                                 "0xffffffffffffffff",
                                 "0xFFFFFFFFFFFFFFFF",
                                 "0x10000000000000000",
                                 "1x10",
                                 "0y10",
                                 "x10",
                                 "0x-1",
                                 "0x 1",
                                 "",
                                 "0x00000000000000001"};
  const std::string digits = "0123456789abcdefABCDEF";
  unsigned seed = 12345;
  auto next = [&] { return seed = seed * 1103515245u + 12345u; };
  for (int i = 0; i < 4000; ++i) {
    std::string text = "0x";
    const std::size_t length = 1 + next() % 16;
    for (std::size_t k = 0; k < length; ++k) text += digits[(next() >> 8) % digits.size()];
    if (i % 2 == 1) {
      // one character that is not a hex digit (é: bytes above 0x7f), anywhere after the prefix
      static const char* const kBad[] = {"g", "G", "/",    ":",    "@",
                                         "`", "x", "\x7f", "\x01", "\xc3\xa9"};
      text.replace(2 + (next() >> 8) % length, 1, kBad[(next() >> 8) % std::size(kBad)]);
    }
    texts.push_back(text);
  }
  for (const auto& text : texts) {
    INFO(text);
    const auto expected = parse_address(text);
    for (const std::string shape : {"address", "class", "references"}) {
      std::string line =
          R"({"type":"STRING", "address":")" + (shape == "address" ? text : "0x1") + "\"";
      if (shape == "class") line += R"(, "class":")" + text + "\"";
      if (shape == "references") line += R"(, "references":["0x2", ")" + text + "\"]";
      line += "}";
      const auto record = parse_line(line);
      if (!expected) {
        CHECK(record.kind == RecordKind::kBroken);
        continue;
      }
      REQUIRE(record.kind == RecordKind::kObject);
      if (shape == "address") CHECK(record.address == *expected);
      if (shape == "class") CHECK(record.class_address == *expected);
      if (shape == "references") CHECK(record.references == std::vector<Address>{0x2, *expected});
    }
  }
}

TEST_CASE("an Array's length and a Hash's size are kept: containers' growth", "[record_parser]") {
  auto array = parse_line(
      R"({"address":"0x10", "type":"ARRAY", "class":"0x20", "length":3, "embedded":true, "memsize":40})");
  CHECK(array.has_length);
  CHECK(array.length == 3);
  auto hash =
      parse_line(R"({"address":"0x10", "type":"HASH", "class":"0x20", "size":0, "memsize":40})");
  CHECK(hash.has_length);
  CHECK(hash.length == 0);
  auto string = parse_line(
      R"({"address":"0x10", "type":"STRING", "bytesize":3, "value":"abc", "memsize":40})");
  CHECK(string.has_length);  // a buffer's growth is read from its bytesize
  CHECK(string.length == 3);
}

TEST_CASE("shapes: SHAPE records and an object's shape_id, raw references kept",
          "[record_parser]") {
  // As Ruby 3.4 (wasm) writes them.
  auto shape =
      parse_line(R"({"address":"0x23315a8", "type":"SHAPE", "id":228, "parent_id":227, "depth":3, )"
                 R"("shape_type":"IVAR","edge_name":"@b", "edges":2, "memsize":72})");
  REQUIRE(shape.kind == RecordKind::kShape);
  CHECK(shape.has_shape_id);
  CHECK(shape.shape_id == 228);
  CHECK(shape.has_shape_parent);
  CHECK(shape.shape_parent == 227);
  CHECK(shape.shape_type == "IVAR");
  CHECK(shape.edge_name == "@b");
  auto root = parse_line(
      R"({"address":"0x2330048", "type":"SHAPE", "id":0, "depth":1, "shape_type":"ROOT", "edges":10, "memsize":168})");
  CHECK(root.has_shape_id);
  CHECK_FALSE(root.has_shape_parent);
  // An object's shape_id; the same object twice in its references stays twice.
  auto dup = parse_line(
      R"({"address":"0x454a0c0", "type":"OBJECT", "shape_id":229, "slot_size":20, "class":"0x452ba94", )"
      R"("embedded":true, "ivars":3, "references":["0x452a734", "0x452a734"], "memsize":20})");
  REQUIRE(dup.kind == RecordKind::kObject);
  CHECK(dup.shape_id == 229);
  CHECK_FALSE(dup.too_complex_shape);
  CHECK(dup.references == std::vector<Address>{0x452a734, 0x452a734});
  // 4.0: too complex, shape_id 0.
  auto complex = parse_line(
      R"({"address":"0x13fa6f88", "type":"OBJECT", "shape_id":0, "slot_size":24, "class":"0x13fcfe48", )"
      R"("ivars":3, "too_complex_shape":true, "references":["0x13fcf5a8"], "memsize":152})");
  CHECK(complex.too_complex_shape);
  // An object's `id`-like key is not a shape id (only SHAPE records have `id`).
  auto object = parse_line(R"({"address":"0x10", "type":"OBJECT", "id":7, "memsize":40})");
  CHECK_FALSE(object.has_shape_id);
  // A mistyped field breaks the line, as for any other field.
  CHECK(parse_line(R"({"address":"0x10", "type":"OBJECT", "too_complex_shape":"yes"})").kind ==
        RecordKind::kBroken);
}
