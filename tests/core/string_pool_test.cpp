// StringPool: one id per distinct string, in order of first appearance,
// whatever the cache in front of its table holds and however often the
// table grows; the empty string is id 0.
#include "core/base/string_pool.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace heapleak;

TEST_CASE("strings get ids in order of first appearance, the same id each time", "[string_pool]") {
  StringPool pool;
  CHECK(pool.intern("") == StringPool::kEmpty);
  CHECK(pool.at(StringPool::kEmpty).empty());
  const std::uint32_t a = pool.intern("app/models/user.rb");
  const std::uint32_t b = pool.intern("call");
  CHECK(a == 1);
  CHECK(b == 2);
  CHECK(pool.intern("call") == b);
  CHECK(pool.intern(std::string("app/models/") + "user.rb") == a);
  CHECK(pool.at(a) == "app/models/user.rb");
  CHECK(pool.size() == 3);
}

TEST_CASE("strings alike in length, head and tail keep ids of their own", "[string_pool]") {
  // Same length and same last eight bytes (the cache's slot), differing in
  // one middle byte; then short ones, below eight bytes.
  StringPool pool;
  std::vector<std::string> texts;
  for (int k = 0; k < 500; ++k) {
    std::string text = "gems/activesupport/lib/x" + std::to_string(1000 + k) + "/core_ext.rb";
    texts.push_back(text);
  }
  for (char c = 'a'; c <= 'z'; ++c) texts.push_back(std::string(1, c));
  for (char c = 'a'; c <= 'z'; ++c) texts.push_back(std::string("ab") + c + "de");
  for (int round = 0; round < 3; ++round) {
    for (std::size_t k = 0; k < texts.size(); ++k) {
      INFO(texts[k]);
      REQUIRE(pool.intern(texts[k]) == k + 1);
    }
  }
  for (std::size_t k = 0; k < texts.size(); ++k)
    CHECK(pool.at(static_cast<std::uint32_t>(k + 1)) == texts[k]);
}

TEST_CASE("a pool of a hundred thousand strings grows its table and loses none", "[string_pool]") {
  StringPool pool;
  constexpr int kCount = 100000;
  for (int k = 0; k < kCount; ++k) REQUIRE(pool.intern("method_" + std::to_string(k)) == k + 1);
  // Interleaved again, so the cache in front misses: the table answers.
  for (int k = kCount - 1; k >= 0; k -= 3)
    REQUIRE(pool.intern("method_" + std::to_string(k)) == k + 1);
  CHECK(pool.size() == kCount + 1);
  CHECK(pool.at(54321) == "method_54320");
}
