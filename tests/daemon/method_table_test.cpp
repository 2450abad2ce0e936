// The daemon's method table: every name protocol/method_names.h lists (but
// the session's own) is registered, nothing else, and each runs where its
// policy says.
#include "daemon/method_table.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "protocol/method_names.h"

using namespace heapleak;
using namespace heapleak::daemon;

namespace {

std::set<std::string> registered_names() {
  HeapStore store(0);
  WorkerPool loads(0);
  WorkerPool queries(0);
  const HeapCache cache({false, {}, 0});
  DaemonContext ctx{store, loads, queries, nullptr, [] {}, cache};
  protocol::Binder binder;
  register_all_methods(binder, ctx);
  const auto names = binder.request_methods();
  return {names.begin(), names.end()};
}

}  // namespace

TEST_CASE("the daemon registers exactly the protocol's methods", "[daemon][methods]") {
  std::set<std::string> expected;
  for (std::string_view name : protocol::methods::kAll) {
    const auto& owned = protocol::methods::kSessionOwned;
    if (std::find(owned.begin(), owned.end(), name) == owned.end()) expected.emplace(name);
  }
  // 15 + dominatorTree (issue 16) + cacheList, cacheClear (issue 15) + report (issue 45)
  CHECK(expected.size() == 19);
  CHECK(registered_names() == expected);
}

TEST_CASE("a load method must return a LoadJob", "[daemon][methods]") {
  HeapStore store(0);
  WorkerPool pool(0);
  const HeapCache cache({false, {}, 0});
  DaemonContext ctx{store, pool, pool, nullptr, [] {}, cache};
  protocol::Binder binder;
  MethodTable table(binder, ctx);
  RunFn<protocol::NoParams, boost::json::value> cheap =
      [](DaemonContext&, const protocol::NoParams&, const protocol::RequestContext&) {
        return boost::json::value(1);
      };
  CHECK_THROWS_AS(table.add("cheap", Runs::kOnLoadPool, cheap), std::logic_error);
  RunFn<protocol::NoParams, LoadJob> load = [](DaemonContext&, const protocol::NoParams&,
                                               const protocol::RequestContext&) {
    return LoadJob([](const protocol::Reply& reply) { reply.result(2); });
  };
  CHECK_THROWS_AS(table.add("load", Runs::kInline, load), std::logic_error);
  CHECK(binder.request_methods().empty());
}
