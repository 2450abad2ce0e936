// CancelRegistry: ids to stop tokens, keyed like JSON-RPC compares ids.
#include "protocol/cancel_registry.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

using heapleak::protocol::CancelRegistry;
namespace json = boost::json;

TEST_CASE("cancel stops the matching in-flight request only", "[cancel]") {
  CancelRegistry registry;
  auto [ticket_a, stop_a] = registry.enter(json::value(1));
  auto [ticket_b, stop_b] = registry.enter(json::value("1"));
  CHECK(registry.size() == 2);
  CHECK(registry.cancel(json::value(1)));
  CHECK(stop_a.stop_requested());
  CHECK_FALSE(stop_b.stop_requested());
  CHECK_FALSE(registry.cancel(json::value(99)));
  registry.leave(ticket_a);
  CHECK_FALSE(registry.cancel(json::value(1)));
  CHECK(registry.size() == 1);
  registry.cancel_all();
  CHECK(stop_b.stop_requested());
}

TEST_CASE("ids compare like numbers: 7 == 7.0, 7 != \"7\"", "[cancel]") {
  CHECK(CancelRegistry::key_of(json::value(7)) == CancelRegistry::key_of(json::value(7.0)));
  CHECK(CancelRegistry::key_of(json::value(7)) == CancelRegistry::key_of(json::value(7u)));
  CHECK(CancelRegistry::key_of(json::value(7)) != CancelRegistry::key_of(json::value("7")));
}

TEST_CASE("stop callbacks may re-enter the registry", "[cancel]") {
  CancelRegistry registry;
  auto [ticket, stop] = registry.enter(json::value(3));
  bool ran = false;
  std::stop_callback callback(stop, [&, t = ticket] {
    registry.leave(t);  // would deadlock if cancel held its lock here
    ran = true;
  });
  CHECK(registry.cancel(json::value(3)));
  CHECK(ran);
  CHECK(registry.size() == 0);
}
