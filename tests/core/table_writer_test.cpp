#include "core/reports/table_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

using namespace heapleak;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string written(TableFormat format, const std::function<void(TableWriter&)>& rows) {
  const auto path =
      (std::filesystem::temp_directory_path() / "heapleak_table_writer_test.txt").string();
  auto writer = TableWriter::create(path, format, {"a", "b", "c"});
  REQUIRE(writer);
  rows(**writer);
  REQUIRE((*writer)->finish());
  std::string text = slurp(path);
  std::filesystem::remove(path);
  return text;
}

}  // namespace

TEST_CASE("JSON lines: escapes, NULL keys left out, addresses as heapleak prints them",
          "[table_writer]") {
  const std::string text = written(TableFormat::kJsonLines, [](TableWriter& out) {
    out.number(18446744073709551615ull);
    out.text("a\"b\\c\nd\te\x01");
    out.null();
    out.end_row();
    out.null();
    out.null();
    out.null();
    out.end_row();
    out.address(0x7f9f030a37d8);
    out.boolean(true);
    out.text("");
    out.end_row();
  });
  CHECK(text ==
        "{\"a\":18446744073709551615,\"b\":\"a\\\"b\\\\c\\nd\\te\\u0001\"}\n"
        "{}\n"
        "{\"a\":\"0x7f9f030a37d8\",\"b\":true,\"c\":\"\"}\n");
}

TEST_CASE("CSV: a header, strings always quoted, NULL an empty field", "[table_writer]") {
  const std::string text = written(TableFormat::kCsv, [](TableWriter& out) {
    out.number(1);
    out.text("x,\"y\"\nz");
    out.null();
    out.end_row();
    out.null();
    out.text("");
    out.number(0);
    out.end_row();
  });
  CHECK(text == "a,b,c\n1,\"x,\"\"y\"\"\nz\",\n,\"\",0\n");
}

TEST_CASE("invalid UTF-8 becomes U+FFFD, valid multibyte text is kept", "[table_writer]") {
  const std::string text = written(TableFormat::kJsonLines, [](TableWriter& out) {
    out.text("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");     // café € 😀
    out.text("bad\xFF|\xC3|\xE2\x82|\xC0\xAF|\xED\xA0\x80.");  // stray, cut, overlong, surrogate
    out.null();
    out.end_row();
  });
  const std::string r = "\xEF\xBF\xBD";
  CHECK(text == "{\"a\":\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\",\"b\":\"bad" + r + "|" + r +
                    "|" + r + r + "|" + r + r + "|" + r + r + r + ".\"}\n");
}

TEST_CASE("a table that cannot be written says which file", "[table_writer]") {
  auto writer = TableWriter::create("/nonexistent-dir/t.jsonl", TableFormat::kJsonLines, {"a"});
  REQUIRE_FALSE(writer);
  CHECK(writer.error().message.find("/nonexistent-dir/t.jsonl") != std::string::npos);
}
