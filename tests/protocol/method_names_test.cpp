// The method list: unique, camelCase or `$/`, and documented in docs/protocol.md.
#include "protocol/method_names.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace methods = heapleak::protocol::methods;

namespace {
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '/';
}

// `name` occurs as a whole word (so "initialize" is not found inside "initialized").
bool mentions(const std::string& text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool left_ok = at == 0 || !is_name_char(text[at - 1]);
    const std::size_t end = at + name.size();
    const bool right_ok = end == text.size() || !is_name_char(text[end]);
    if (left_ok && right_ok) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("method names are unique and well-formed", "[method_names]") {
  std::set<std::string_view> seen;
  for (std::string_view name : methods::kAll) {
    INFO(name);
    CHECK(seen.insert(name).second);
    CHECK(!name.empty());
    CHECK((name.rfind("$/", 0) == 0 || (name[0] >= 'a' && name[0] <= 'z')));
  }
  CHECK(seen.count("loadHeap") == 1);
  CHECK(seen.count("duplicateStrings") == 1);
}

TEST_CASE("whole-word matching", "[method_names]") {
  CHECK(mentions("call `initialize` first", "initialize"));
  CHECK_FALSE(mentions("after `initialized`", "initialize"));
  CHECK_FALSE(mentions("the $/progressive thing", "$/progress"));
  CHECK(mentions("### root\n", "root"));
}

TEST_CASE("docs/protocol.md documents every method", "[method_names][docs]") {
  const std::string path = std::string(HEAPLEAK_SOURCE_DIR) + "/docs/protocol.md";
  std::ifstream file(path);
  if (!file) {
    WARN("SKIPPED: " << path << " does not exist yet; write it and this test checks it");
    return;
  }
  std::stringstream text;
  text << file.rdbuf();
  const std::string doc = text.str();
  for (std::string_view name : methods::kAll) {
    INFO("docs/protocol.md does not mention `" << name << "`");
    CHECK(mentions(doc, name));
  }
}
