// Collects the replies to one JSON-RPC batch and sends them as one array when
// the last arrives (replies may come from worker threads, in any order). A
// batch whose entries were all notifications sends nothing.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <memory>
#include <mutex>

#include "protocol/framing.h"
#include "protocol/outbox.h"

namespace heapleak::protocol {

class BatchCollector {
 public:
  BatchCollector(std::weak_ptr<Outbox> outbox, Framing framing);

  void expect();                           // one more entry will reply
  void add(boost::json::object response);  // an entry replied
  void seal();                             // every entry was dispatched

 private:
  void flush_locked();

  std::weak_ptr<Outbox> outbox_;
  Framing framing_;
  std::mutex mutex_;
  boost::json::array replies_;
  std::size_t pending_ = 1;  // the seal itself, so nothing is sent mid-dispatch
};

}  // namespace heapleak::protocol
