// daemon/kept_counterparts.h: what a diff's streams said of B is found again
// for the same B and the same file only, dropped with B, and a few at most.
#include "daemon/kept_counterparts.h"

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/analysis_admission.h"
#include "daemon/daemon_context.h"
#include "daemon/heap_store.h"
#include "daemon/worker_pool.h"
#include "protocol/error.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::daemon;
using namespace heapleak::test;

namespace {

std::shared_ptr<const Heap> heap() {
  return load_text(join_lines({object_line({"0x100", "STRING", "", {}, "\"value\":\"x\""})}));
}

std::shared_ptr<const Counterparts> said(std::uint64_t inode) {
  auto counterparts = std::make_shared<Counterparts>();
  counterparts->dump.report.identity.inode = inode;
  return counterparts;
}

FileIdentity file(std::uint64_t inode) {
  FileIdentity identity;
  identity.inode = inode;
  return identity;
}

}  // namespace

TEST_CASE("kept counterparts: the same B and the same file only", "[daemon][kept_counterparts]") {
  KeptCounterparts kept;
  auto b = heap();
  auto other_b = heap();
  const auto a = said(1);
  kept.keep(b, "/dumps/A.json", a);

  CHECK(kept.find(*b, "/dumps/A.json", file(1)) == a);
  CHECK(kept.find(*other_b, "/dumps/A.json", file(1)) == nullptr);
  CHECK(kept.find(*b, "/dumps/C.json", file(1)) == nullptr);

  // A new dump written to the path: not what was read, and said so.
  std::optional<FileIdentity> changed_from;
  CHECK(kept.find(*b, "/dumps/A.json", file(2), &changed_from) == nullptr);
  REQUIRE(changed_from);
  CHECK(changed_from->inode == 1);
  CHECK(kept.find(*b, "/dumps/A.json", file(1), &changed_from) == a);
  CHECK_FALSE(changed_from);

  // Kept again for the new file: it replaces the old.
  const auto a2 = said(2);
  kept.keep(b, "/dumps/A.json", a2);
  CHECK(kept.find(*b, "/dumps/A.json", file(2)) == a2);
  CHECK(kept.find(*b, "/dumps/A.json", file(1)) == nullptr);
}

TEST_CASE("kept counterparts: dropped with B, four at most", "[daemon][kept_counterparts]") {
  KeptCounterparts kept;
  auto b = heap();
  kept.keep(b, "/dumps/A.json", said(1));
  b.reset();  // B unloaded: what was kept for it goes at the next look
  auto other = heap();
  CHECK(kept.find(*other, "/dumps/A.json", file(1)) == nullptr);

  for (int k = 0; k < 5; ++k) kept.keep(other, "/dumps/D" + std::to_string(k), said(k));
  CHECK(kept.find(*other, "/dumps/D0", file(0)) == nullptr);  // the oldest, dropped
  for (int k = 1; k < 5; ++k) CHECK(kept.find(*other, "/dumps/D" + std::to_string(k), file(k)));
}

TEST_CASE("kept counterparts: charged to B in the store, the dropped one's B recharged",
          "[daemon][kept_counterparts]") {
  HeapStore store;
  KeptCounterparts kept;
  auto b = heap();
  auto other_b = heap();
  for (const auto& h : {b, other_b}) {
    const std::string name = store.begin_load("B");
    store.finish_load(name, "/dumps/B.json", h, 0, [](const HeapEntry&) {});
  }
  const std::uint64_t heaps_only = store.used_bytes();
  auto charge = [&](const std::vector<std::shared_ptr<const Heap>>& changed) {
    for (const auto& h : changed) store.charge_beside(*h, kept.bytes_for(*h));
  };
  auto a = said(1);
  charge(kept.keep(b, "/dumps/A.json", a));
  CHECK(kept.bytes_for(*b) == a->bytes_used());
  CHECK(store.used_bytes() == heaps_only + a->bytes_used());
  CHECK(store.list()[0].beside == a->bytes_used());

  // Three more for the other B: the fifth keep drops b's, and says so.
  for (int k = 0; k < 3; ++k) charge(kept.keep(other_b, "/dumps/D" + std::to_string(k), said(k)));
  const auto changed = kept.keep(other_b, "/dumps/D3", said(3));
  REQUIRE(changed.size() == 2);
  CHECK(changed[1] == b);
  charge(changed);
  CHECK(kept.bytes_for(*b) == 0);
  CHECK(store.list()[0].beside == 0);
  CHECK(store.used_bytes() == heaps_only + kept.bytes_for(*other_b));

  // Unloading a B frees what was charged beside it.
  store.remove(store.list()[1].id);
  CHECK(store.used_bytes() == store.list()[0].charged);
}

TEST_CASE("streams are admitted against --max-memory on their peak, and refused past it",
          "[daemon][kept_counterparts]") {
  auto b = heap();
  // Room for B and 8 MiB more: one stream fits (4 MiB and 5 bytes an
  // object), two do not.
  HeapStore store(b->bytes_used() + (std::uint64_t{8} << 20));
  store.finish_load(store.begin_load("B.json"), "/dumps/B.json", b, 0, [](const HeapEntry&) {});
  WorkerPool pool(0);
  const HeapCache cache({false, {}, 0});
  DaemonContext ctx{store, pool, pool, nullptr, [] {}, cache};
  const HeapEntry entry = store.list().at(0);
  const std::uint64_t held = store.used_bytes();
  {
    const StreamAdmission one(ctx, entry, "A.json", 1);
    CHECK(store.used_bytes() > held);  // reserved while the stream runs
  }
  CHECK(store.used_bytes() == held);  // and given back
  try {
    const StreamAdmission two(ctx, entry, "A.json, C.json", 2);
    FAIL("two streams were admitted past the budget");
  } catch (const protocol::RpcException& e) {
    REQUIRE(e.error().data);
    const auto& data = e.error().data->as_object();
    CHECK(data.at("reason") == "overBudget");
    CHECK(data.at("heap") == boost::json::value(entry.id));
    CHECK(data.at("neededBytes").to_number<std::uint64_t>() >
          data.at("availableBytes").to_number<std::uint64_t>());
    CHECK(e.error().message.find("reading A.json, C.json against h1") != std::string::npos);
  }
  CHECK(store.used_bytes() == held);  // a refusal reserves nothing

  // A series' eight streams: all their flags are kept, but only two run at
  // once (engine::DiffStreams::kAtOnce): they fit where a third 4 MiB
  // would not.
  HeapStore roomier(b->bytes_used() + (std::uint64_t{9} << 20));
  roomier.finish_load(roomier.begin_load("B.json"), "/dumps/B.json", b, 0, [](const HeapEntry&) {});
  DaemonContext series_ctx{roomier, pool, pool, nullptr, [] {}, cache};
  const StreamAdmission eight(series_ctx, roomier.list().at(0), "D1.json, ..., D8.json", 8);
  CHECK(roomier.used_bytes() > roomier.list().at(0).charged);
}
