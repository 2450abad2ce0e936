// One renderer per result shape: the wire JSON that results/*_json builds
// (heapleakd's answer, `heapleak --json`'s output) -> a text Doc. heapleak,
// heapleak-client and heapleakd --mcp all print a result through these, so one
// answer reads the same on every surface; width, colour and paging stay with
// each client. Every dump string is escaped (terminal_safe.h).
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>

#include "results/text/text_doc.h"

namespace heapleak::text {

struct RenderOptions {
  // Said after "... N more rows": how this surface shows them (a CLI's
  // " (--limit 0 shows all)"); MCP says nothing here and adds its own hint.
  std::string more_hint;
  // explain: each row's sample addresses (a model follows them up).
  bool samples = false;
};

Doc stats_text(const boost::json::value& stats, const RenderOptions& options = {});
Doc explain_text(const boost::json::value& explain, const RenderOptions& options = {});
// topRetainers' result; with `duplicateStrings` (as both CLIs' `top` carry it)
// a second table of the strings stored many times over.
Doc top_text(const boost::json::value& top, const RenderOptions& options = {});
Doc owner_text(const boost::json::value& owner);
Doc path_text(const boost::json::value& path);
// root's answer in words (its graph is the dot text): the retainer, its path,
// or why there is none, and which container holds which samples.
Doc retainer_text(const boost::json::value& root);
// loadHeap's answer in one sentence (where from, the heap's id and name,
// objects, allocation sites, memory, time); a dump cut short and the lines
// skipped are its warnings.
Doc loaded_text(const boost::json::value& loaded);
// unloadHeap's answer.
Doc unloaded_text(const boost::json::value& unloaded);
// object's answer (heapleak-client inspect, MCP inspect_object): the object's
// fields, then its dump record field by field, each value cut to
// `record_columns` when given (a terminal cuts to its own width instead).
Doc object_text(const boost::json::value& object, std::size_t record_columns = 0);
// A referrers or references page ({address, total, offset, items}; `side`
// names which): a row an object, then which of how many these are. When more
// follow, `next_page` is how this surface asks for them, the offset appended
// (heapleak-client's "--offset "); empty says nothing (MCP adds its sentence).
Doc edge_page_text(const boost::json::value& page, std::string_view side,
                   std::string_view next_page = {});
// listHeaps: how many heaps, the memory used and the budget, one row a heap.
Doc heaps_text(const boost::json::value& heaps);
// cache list (cacheList's result): the directory, then one row an image;
// cache clear (cacheClear's): what was deleted.
Doc cache_list_text(const boost::json::value& list);
Doc cache_clear_text(const boost::json::value& cleared);

}  // namespace heapleak::text
