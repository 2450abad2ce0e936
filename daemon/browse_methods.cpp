// object, referrers, references: browsing one heap object by object. The
// edge pages are cheap and answered inline; `object` re-reads the record
// from the dump file, so it runs on the query pool.
#include <boost/json.hpp>

#include "core/record_reader.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/query_task.h"
#include "daemon/results_json.h"
#include "daemon/wire_params.h"

namespace heapleak::daemon {
namespace json = boost::json;
using protocol::RequestContext;

namespace {

json::value page_json(const Heap& heap, ObjectIndex i, std::span<const ObjectIndex> edges,
                      const PageParams& params) {
  json::array items;
  const std::size_t begin = std::min(params.offset, edges.size());
  const std::size_t end = std::min(edges.size(), begin + params.limit);
  for (std::size_t k = begin; k < end; ++k) items.push_back(object_brief_json(heap, edges[k]));
  return json::object{{"address", format_address(heap.address(i))},
                      {"total", edges.size()},
                      {"offset", begin},
                      {"items", std::move(items)}};
}

json::value object_json(const HeapEntry& entry, ObjectIndex i) {
  const Heap& heap = *entry.heap;
  json::object out = object_brief_json(heap, i);
  out["heap"] = entry.id;
  out["referencesCount"] = heap.references(i).size();
  out["referrersCount"] = heap.referrers(i).size();
  if (auto method = heap.method(i); !method.empty()) out["method"] = method;
  auto text = read_record_text(heap, i);
  if (!text) {
    out["recordError"] = text.error().message;
    out["recordErrorReason"] = reason_name(text.error().reason);  // dumpChanged, notReadable...
    return out;
  }
  boost::system::error_code error;
  json::value record = json::parse(*text, error);
  if (error) {
    out["recordError"] = "the record does not parse as JSON: " + error.message();
    out["recordText"] = *text;
  } else {
    out["record"] = std::move(record);
  }
  return out;
}

}  // namespace

void register_browse_methods(protocol::Binder& binder, DaemonContext& ctx) {
  add_inline<PageParams>(
      binder, ctx, "referrers",
      [](DaemonContext& ctx, const PageParams& params, const std::stop_token&) {
        const HeapEntry entry = require_heap(ctx.store, params.heap);
        const ObjectIndex i = require_object(*entry.heap, params.address);
        return json::value(page_json(*entry.heap, i, entry.heap->referrers(i), params));
      });
  add_inline<PageParams>(binder, ctx, "references",
                         [](DaemonContext& ctx, const PageParams& params, const std::stop_token&) {
                           const HeapEntry entry = require_heap(ctx.store, params.heap);
                           const ObjectIndex i = require_object(*entry.heap, params.address);
                           return page_json(*entry.heap, i, entry.heap->references(i), params);
                         });
  add_on_query_pool<AddressParams>(
      binder, ctx, "object",
      [](DaemonContext& ctx, const AddressParams& params, const std::stop_token&) {
        const HeapEntry entry = require_heap(ctx.store, params.heap);
        return object_json(entry, require_object(*entry.heap, params.address));
      });
}

}  // namespace heapleak::daemon
