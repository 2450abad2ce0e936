// What every method handler shares: the heap store, the worker pools, the
// logger and the way to stop the daemon. Built once in main and passed to the
// method families' register functions (one file per family).
#pragma once

#include <functional>
#include <memory>

#include "daemon/heap_store.h"
#include "daemon/worker_pool.h"
#include "protocol/binder.h"
#include "protocol/logger.h"

namespace heapleak::daemon {

struct DaemonContext {
  HeapStore& store;
  WorkerPool& loads;    // loads: long, at most a couple at a time
  WorkerPool& queries;  // diffs and graph searches: so queries never wait behind a load
  std::shared_ptr<protocol::Logger> logger;
  std::function<void()> request_stop;  // stopDaemon
};

void register_heap_methods(protocol::Binder& binder, DaemonContext& context);
void register_analysis_methods(protocol::Binder& binder, DaemonContext& context);
void register_browse_methods(protocol::Binder& binder, DaemonContext& context);
void register_ownership_methods(protocol::Binder& binder, DaemonContext& context);

}  // namespace heapleak::daemon
