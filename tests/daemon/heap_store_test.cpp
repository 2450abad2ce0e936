// HeapStore: names reserved while a load runs, waiters resumed once when it
// ends (after the load is announced), budget reservations given back.
#include "daemon/heap_store.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/core/test_dump.h"

namespace heapleak::daemon {
namespace {

std::shared_ptr<const Heap> tiny_heap() {
  using test::Obj;
  return test::load_text(test::join_lines({test::object_line(Obj{.address = "0x1"})}));
}

TEST_CASE("a running load holds its name, so the next load of that name gets name-2") {
  HeapStore store;
  CHECK(store.begin_load("B.json") == "B.json");
  CHECK(store.begin_load("B.json") == "B.json-2");
  CHECK(store.loading_names() == std::vector<std::string>{"B.json", "B.json-2"});
  store.finish_load("B.json", "/tmp/B.json", tiny_heap(), 0, [](const HeapEntry&) {});
  CHECK(store.begin_load("B.json") == "B.json-3");  // loaded and running names both count
  store.abandon_load("B.json-2", 0);
  CHECK(store.begin_load("B.json") == "B.json-2");  // an abandoned load frees its name
}

TEST_CASE("ids follow the order loads begin in, whatever order they end in") {
  HeapStore store;
  store.begin_load("A");
  store.begin_load("B");
  store.begin_load("bad");
  store.begin_load("C");
  store.finish_load("C", "/tmp/C", tiny_heap(), 0, [](const HeapEntry&) {});
  store.abandon_load("bad", 0);
  store.finish_load("B", "/tmp/B", tiny_heap(), 0, [](const HeapEntry&) {});
  store.finish_load("A", "/tmp/A", tiny_heap(), 0, [](const HeapEntry&) {});
  std::vector<std::string> listed;
  for (const auto& entry : store.list()) listed.push_back(entry.id + "=" + entry.name);
  // Listed in id order; the failed load's id (h3) stays unused.
  CHECK(listed == std::vector<std::string>{"h1=A", "h2=B", "h4=C"});
  // A failed load that took the last id gives it back.
  store.begin_load("bad");
  store.abandon_load("bad", 0);
  store.begin_load("D");
  store.finish_load("D", "/tmp/D", tiny_heap(), 0, [](const HeapEntry&) {});
  REQUIRE(store.find("D"));
  CHECK(store.find("D")->id == "h5");
}

TEST_CASE("find says whether a missing name is still loading") {
  HeapStore store;
  bool loading = false;
  CHECK_FALSE(store.find("B", &loading));
  CHECK_FALSE(loading);
  store.begin_load("B");
  CHECK_FALSE(store.find("B", &loading));
  CHECK(loading);
  store.finish_load("B", "/tmp/B", tiny_heap(), 0, [](const HeapEntry&) {});
  loading = true;
  auto entry = store.find("B", &loading);
  REQUIRE(entry);
  CHECK(entry->id == "h1");
  CHECK(store.find("h1"));
  CHECK(store.loading_names().empty());
}

TEST_CASE("waiters resume once, after the load is announced, whether it succeeds or fails") {
  HeapStore store;
  std::vector<std::string> events;
  CHECK_FALSE(store.when_load_ends("B", [&] { events.push_back("never"); }));  // nothing running

  store.begin_load("B");
  store.begin_load("C");
  REQUIRE(store.when_load_ends("B", [&] { events.push_back("waiter 1 of B"); }));
  REQUIRE(store.when_load_ends("B", [&] { events.push_back("waiter 2 of B"); }));
  REQUIRE(store.when_load_ends("C", [&] {
    bool loading = true;
    events.push_back(store.find("C", &loading) || loading ? "C still there" : "C gone");
  }));
  store.finish_load("B", "/tmp/B", tiny_heap(), 0,
                    [&](const HeapEntry& entry) { events.push_back("announce " + entry.name); });
  store.abandon_load("C", 0);
  CHECK(events ==
        std::vector<std::string>{"announce B", "waiter 1 of B", "waiter 2 of B", "C gone"});
  CHECK_FALSE(store.when_load_ends("B", [] {}));
}

TEST_CASE("a load's reservation turns into its real size, or is given back") {
  HeapStore store(std::uint64_t{64} << 20);
  std::string why;
  REQUIRE(store.admit(std::uint64_t{40} << 20, why));
  CHECK_FALSE(store.admit(std::uint64_t{40} << 20, why));
  CHECK(why.find("--max-memory") != std::string::npos);
  store.begin_load("B");
  auto heap = tiny_heap();
  const auto resident = heap->bytes_used();
  store.finish_load("B", "/tmp/B", heap, std::uint64_t{40} << 20, [](const HeapEntry&) {});
  CHECK(store.used_bytes() == resident);
  REQUIRE(store.admit(std::uint64_t{40} << 20, why));
  store.begin_load("C");
  store.abandon_load("C", std::uint64_t{40} << 20);
  CHECK(store.used_bytes() == resident);
}

TEST_CASE("an analysis is admitted on its estimate, then charged to its heap for what it keeps") {
  HeapStore store(std::uint64_t{64} << 20);
  store.begin_load("B");
  auto heap = tiny_heap();
  const std::uint64_t resident = heap->bytes_used();
  store.finish_load("B", "/tmp/B", heap, 0, [](const HeapEntry&) {});
  std::uint64_t available = 0;
  CHECK_FALSE(store.admit_analysis(std::uint64_t{64} << 20, available));
  CHECK(available == (std::uint64_t{64} << 20) - resident);
  CHECK(store.used_bytes() == resident);  // a refusal reserves nothing
  REQUIRE(store.admit_analysis(std::uint64_t{1} << 20, available));
  CHECK(store.used_bytes() == resident + (std::uint64_t{1} << 20));
  heap->dominators();
  heap->root_paths();
  REQUIRE(heap->analyses_bytes_used() > 0);
  store.release(std::uint64_t{1} << 20);
  store.recharge("h1");
  const std::uint64_t charged = resident + heap->analyses_bytes_used();
  CHECK(store.used_bytes() == charged);
  CHECK(store.find("h1")->charged == charged);
  store.recharge("h1");  // charging again charges the difference, here none
  CHECK(store.used_bytes() == charged);
  REQUIRE(store.remove("h1"));
  CHECK(store.used_bytes() == 0);  // unloading frees the analyses' charge too
}

}  // namespace
}  // namespace heapleak::daemon
