// SipHash-2-4 against the reference vectors, the line redactor, and a dump
// redacted end to end: no value survives, every record and length is kept.
#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "core/base/siphash.h"
#include "core/loading/loader.h"
#include "core/redaction/dump_redaction.h"
#include "core/redaction/string_redactor.h"
#include "tests/core/test_dump.h"

using namespace heapleak;

namespace {

SipKey sequential_key() {
  SipKey key{};
  for (int i = 0; i < 16; ++i) key[i] = static_cast<std::uint8_t>(i);
  return key;
}

std::string gunzip(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  REQUIRE(in != nullptr);
  std::string text;
  char buffer[65536];
  int n;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0) text.append(buffer, n);
  gzclose(in);
  return text;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("siphash24 gives the reference vectors", "[redaction]") {
  const SipKey key = sequential_key();
  std::string message;
  CHECK(siphash24(key, message) == 0x726fdb47dd0e0e31ULL);
  for (int i = 0; i < 15; ++i) message.push_back(static_cast<char>(i));
  CHECK(siphash24(key, message) == 0xa129ca6149be45e5ULL);
}

TEST_CASE("json_decoded_length counts escapes as the bytes they stand for", "[redaction]") {
  CHECK(json_decoded_length("hello") == 5);
  CHECK(json_decoded_length(R"(a\"b\\c\n)") == 6);
  CHECK(json_decoded_length(R"(\u00e9)") == 2);
  CHECK(json_decoded_length(R"(\u20ac)") == 3);
  CHECK(json_decoded_length(R"(\ud83d\ude00!)") == 5);
}

TEST_CASE("a STRING's value becomes a keyed mask of its length; other records are kept",
          "[redaction]") {
  const StringRedactor redactor(sequential_key());
  const std::string secret =
      R"({"address":"0x10", "type":"STRING", "bytesize":12, "value":"card 4242\"x\"", "memsize":40})"
      "\n";
  std::string out;
  using Outcome = StringRedactor::Outcome;
  CHECK(redactor.redact_line(secret, out) == Outcome::kRedacted);
  CHECK(out.find("4242") == std::string::npos);
  CHECK(out.find(R"("memsize":40})") != std::string::npos);
  const auto begin = out.find(R"("value":")") + 9;
  const std::string mask = out.substr(begin, out.find('"', begin) - begin);
  CHECK(mask.size() == 12);  // card 4242"x": 12 bytes decoded
  CHECK(mask.find_first_not_of("0123456789abcdef") == std::string::npos);

  std::string again;
  redactor.redact_line(secret, again);
  CHECK(again == out);  // equal strings stay equal
  std::string other_key;
  SipKey key2 = sequential_key();
  key2[0] ^= 1;
  StringRedactor(key2).redact_line(secret, other_key);
  CHECK(other_key != out);

  // A dynamic Symbol's name is data too (params[:x].to_sym).
  const std::string symbol = R"({"address":"0x20", "type":"SYMBOL", "value":"user_secret"})"
                             "\n";
  std::string masked;
  CHECK(redactor.redact_line(symbol, masked) == Outcome::kRedacted);
  CHECK(masked.find("user_secret") == std::string::npos);
  CHECK(masked.size() == symbol.size());
  // Spaces after the colons (a re-serialised dump) are read as the loader reads them.
  std::string spaced;
  CHECK(redactor.redact_line(R"({"address": "0x40", "type": "STRING", "value" : "sk_live_9"})",
                             spaced) == Outcome::kRedacted);
  CHECK(spaced.find("sk_live") == std::string::npos);
  // A value the loader refuses (bytes that are not UTF-8, a NUL) keeps its
  // line broken in the copy: one 0xFF byte, nothing of the value.
  for (std::string bad : {std::string("sk_\xC3(secret"), std::string("sk_\0secret", 10)}) {
    std::string broken;
    CHECK(redactor.redact_line(R"({"address":"0x60", "type":"STRING", "value":")" + bad + "\"}",
                               broken) == Outcome::kRedacted);
    CHECK(broken.find("secret") == std::string::npos);
    CHECK(broken.find('\xFF') != std::string::npos);
  }
  std::string fine;
  CHECK(redactor.redact_line(R"({"address":"0x61", "type":"STRING", "value":"caf\u00e9 Ã©"})",
                             fine) == Outcome::kRedacted);
  CHECK(fine.find('\xFF') == std::string::npos);
  // Other records are kept as they are.
  const std::string klass = R"({"address":"0x50", "type":"CLASS", "name":"UserCache"})"
                            "\n";
  std::string kept;
  CHECK(redactor.redact_line(klass, kept) == Outcome::kKept);
  CHECK(kept == klass);
  // A line that cannot be read (cut inside its value, not an object, an
  // escaped key) appends nothing.
  for (const char* unreadable :
       {R"({"address":"0x30", "type":"STRING", "value":"sk_live_12)", R"(["value","x"])",
        R"({"address":"0x30" "value":"x"})", R"({"val\u0075e":"sk_live_1"})"}) {
    std::string none;
    CHECK(redactor.redact_line(unreadable, none) == Outcome::kUnreadable);
    CHECK(none.empty());
  }
}

TEST_CASE("redact_dump copies a gzip dump with every value redacted and loads the same",
          "[redaction]") {
  using namespace heapleak::test;
  const std::string text = join_lines({
      root_line("vm", {"0x100"}),
      class_line("0x200", "String"),
      object_line(
          {.address = "0x100", .type = "ARRAY", .klass = "0x200", .refs = {"0x110", "0x120"}}),
      object_line({.address = "0x110",
                   .type = "STRING",
                   .klass = "0x200",
                   .extra = R"("bytesize":22, "value":"alice@example.com 4242")"}),
      object_line({.address = "0x120",
                   .type = "STRING",
                   .klass = "0x200",
                   .extra = R"("bytesize":22, "value":"alice@example.com 4242")"}),
  });
  const TempFile plain(text, /*gzip=*/true);
  const std::string out = plain.path() + ".redacted.json.gz";
  auto stats = redact_dump(plain.path(), out, sequential_key());
  REQUIRE(stats);
  CHECK(stats->values_redacted == 2);
  const std::string copy = gunzip(out);
  CHECK(copy.find("alice") == std::string::npos);
  CHECK(copy.size() == text.size());

  auto original = load_text(text);
  auto redacted = load_text(copy);
  REQUIRE(original);
  REQUIRE(redacted);
  CHECK(redacted->size() == original->size());

  struct stat st {};
  REQUIRE(::stat(out.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  ::unlink(out.c_str());

  SECTION("plain out, and never over its own input") {
    const std::string plain_out = plain.path() + ".redacted.json";
    REQUIRE(redact_dump(plain.path(), plain_out, sequential_key()));
    CHECK(slurp(plain_out) == copy);
    ::unlink(plain_out.c_str());
    auto same = redact_dump(plain.path(), plain.path(), sequential_key());
    REQUIRE_FALSE(same);
    CHECK(same.error().reason == ErrorReason::kInvalidArgument);
  }
  SECTION("a copy that cannot be written says so (notWritable, not notReadable)") {
    auto nowhere =
        redact_dump(plain.path(), "/nonexistent-heapleak-dir/out.json", sequential_key());
    REQUIRE_FALSE(nowhere);
    CHECK(nowhere.error().reason == ErrorReason::kNotWritable);
    CHECK(nowhere.error().message.find("cannot write") != std::string::npos);
  }
}
