#include "protocol/cancel_registry.h"

#include <boost/json/serialize.hpp>
#include <cmath>
#include <vector>

namespace heapleak::protocol {

std::string CancelRegistry::key_of(const boost::json::value& id) {
  if (id.is_double()) {
    const double d = id.get_double();
    if (std::trunc(d) == d && std::fabs(d) < 9e18) {
      return std::to_string(static_cast<std::int64_t>(d));
    }
  }
  if (id.is_uint64()) return std::to_string(id.get_uint64());
  return boost::json::serialize(id);  // strings keep their quotes
}

std::pair<CancelRegistry::Ticket, std::stop_token> CancelRegistry::enter(
    const boost::json::value& id) {
  std::lock_guard lock(mutex_);
  Ticket ticket{key_of(id), next_serial_++};
  std::stop_source source;
  std::stop_token token = source.get_token();
  slots_.emplace(ticket.key, Slot{ticket.serial, std::move(source)});
  return {std::move(ticket), std::move(token)};
}

void CancelRegistry::leave(const Ticket& ticket) {
  std::lock_guard lock(mutex_);
  auto [first, last] = slots_.equal_range(ticket.key);
  for (auto it = first; it != last; ++it) {
    if (it->second.serial == ticket.serial) {
      slots_.erase(it);
      return;
    }
  }
}

// Stop sources are copied out and stopped after unlocking: request_stop runs
// the handlers' stop_callbacks, which may call back into this registry.
bool CancelRegistry::cancel(const boost::json::value& id) {
  std::vector<std::stop_source> sources;
  {
    std::lock_guard lock(mutex_);
    auto [first, last] = slots_.equal_range(key_of(id));
    for (auto it = first; it != last; ++it) sources.push_back(it->second.source);
  }
  for (auto& source : sources) source.request_stop();
  return !sources.empty();
}

void CancelRegistry::cancel_all() {
  std::vector<std::stop_source> sources;
  {
    std::lock_guard lock(mutex_);
    for (auto& [key, slot] : slots_) sources.push_back(slot.source);
  }
  for (auto& source : sources) source.request_stop();
}

std::size_t CancelRegistry::size() const {
  std::lock_guard lock(mutex_);
  return slots_.size();
}

}  // namespace heapleak::protocol
