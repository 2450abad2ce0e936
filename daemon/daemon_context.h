// What every method handler shares: the heap store, the worker pools, the
// logger and the way to stop the daemon. Built once in main and passed to the
// method table (daemon/method_table.h).
#pragma once

#include <functional>
#include <memory>

#include "core/images/heap_cache.h"
#include "daemon/heap_store.h"
#include "daemon/worker_pool.h"
#include "protocol/logger.h"

namespace heapleak::daemon {

struct DaemonContext {
  HeapStore& store;
  WorkerPool& loads;    // loads: long, at most a couple at a time
  WorkerPool& queries;  // diffs and graph searches: so queries never wait behind a load
  std::shared_ptr<protocol::Logger> logger;
  std::function<void()> request_stop;  // stopDaemon
  const HeapCache& cache;              // images of parsed dumps; loadHeap, cacheList, cacheClear
};

}  // namespace heapleak::daemon
