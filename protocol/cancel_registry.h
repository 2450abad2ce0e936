// Maps in-flight request ids to stop sources so `$/cancelRequest {id}` can
// stop them. Handlers see a std::stop_token and check it in their loops; a
// cancel is a request, not a kill: work stops at its next check. Thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>
#include <unordered_map>
#include <utility>

namespace heapleak::protocol {

class CancelRegistry {
 public:
  struct Ticket {
    std::string key;
    std::uint64_t serial = 0;
  };

  // Registers a request; the token stops when cancel(id) or cancel_all() runs.
  std::pair<Ticket, std::stop_token> enter(const boost::json::value& id);
  // Forgets a request once it is answered; a later cancel of its id is a no-op.
  void leave(const Ticket& ticket);
  // True if a request with this id was in flight.
  bool cancel(const boost::json::value& id);
  void cancel_all();
  std::size_t size() const;

  // 7 and "7" are different ids; 7 and 7.0 are the same.
  static std::string key_of(const boost::json::value& id);

 private:
  struct Slot {
    std::uint64_t serial;
    std::stop_source source;
  };
  mutable std::mutex mutex_;
  std::uint64_t next_serial_ = 1;
  std::unordered_multimap<std::string, Slot> slots_;  // duplicate ids are the peer's bug, tolerated
};

}  // namespace heapleak::protocol
