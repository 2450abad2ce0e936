// What every method handler shares: the heap store, the worker pools, the
// logger and the way to stop the daemon. Built once in main and passed to the
// method table (daemon/method_table.h).
#pragma once

#include <functional>
#include <memory>

#include "core/images/cached_load.h"
#include "core/images/heap_cache.h"
#include "daemon/heap_store.h"
#include "daemon/kept_counterparts.h"
#include "daemon/worker_pool.h"
#include "engine/image_writer.h"
#include "protocol/logger.h"

namespace heapleak::daemon {

struct DaemonContext {
  HeapStore& store;
  WorkerPool& loads;    // loads: long, at most a couple at a time
  WorkerPool& queries;  // diffs and graph searches: so queries never wait behind a load
  std::shared_ptr<protocol::Logger> logger;
  std::function<void()> request_stop;  // stopDaemon
  const HeapCache& cache;              // images of parsed dumps; loadHeap, cacheList, cacheClear
  // Writes the images of the heaps loaded, after each answer, one at a time.
  std::shared_ptr<engine::ImageWriter> images = std::make_shared<engine::ImageWriter>();
  // What the dumps a diff streamed said of B (daemon/streamed_dumps.h).
  std::shared_ptr<KeptCounterparts> kept_counterparts = std::make_shared<KeptCounterparts>();
};

// Queues the image of a heap just loaded (engine/image_writer.h); a failed
// write is logged.
void write_image_later(DaemonContext& ctx, PendingImage image);

}  // namespace heapleak::daemon
