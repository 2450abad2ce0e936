// MCP tools over the daemon's method table: a tools/call becomes one or more
// calls of the registered run_<method> handlers (the same heap store,
// worker pools, --max-memory and cancellation as every other transport),
// and their results become a tool result: compact text for a model
// (mcp_text.h) plus structuredContent, the method's JSON (paged). Errors a
// model can act on (bad path, unknown address) are isError results.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <functional>
#include <memory>
#include <stop_token>
#include <string_view>

#include "protocol/binder.h"
#include "protocol/logger.h"
#include "protocol/progress.h"

namespace heapleak::daemon {

// What one tools/call carries besides the tool's name.
struct McpToolCall {
  boost::json::value id;  // the tools/call request's, for the method calls' log lines
  boost::json::object arguments;
  std::stop_token stop;         // notifications/cancelled, or the client went away
  protocol::Progress progress;  // inert unless the call carried _meta.progressToken
};

// Gets the CallToolResult ({content, structuredContent?, isError?}) exactly
// once, from any thread.
using McpToolDone = std::function<void(boost::json::object result)>;

class McpTools {
 public:
  // `methods`: the daemon's method table (register_all_methods).
  McpTools(std::shared_ptr<const protocol::Binder> methods,
           std::shared_ptr<protocol::Logger> logger);

  // tools/list's entries, in order (mcp_catalog.h).
  const boost::json::array& definitions() const;
  bool has(std::string_view name) const;
  // `name` must be one has() knows.
  void call(std::string_view name, McpToolCall call, McpToolDone done) const;

 private:
  std::shared_ptr<const protocol::Binder> methods_;
  std::shared_ptr<protocol::Logger> logger_;
};

// {content: [{type: "text", text}], isError: true}
boost::json::object mcp_tool_error(std::string text);

}  // namespace heapleak::daemon
