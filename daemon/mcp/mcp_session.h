// One MCP client (heapleakd --mcp): the Model Context Protocol's lifecycle
// (initialize with protocol version negotiation, notifications/initialized,
// ping), tools/list and tools/call, notifications/cancelled and
// notifications/progress, over newline-delimited JSON-RPC (mcp_framing.h).
// Knows no heaps: the tools (mcp_tools.h) run the daemon's methods.
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <memory>
#include <string>

#include "daemon/mcp/mcp_framing.h"
#include "daemon/mcp/mcp_tools.h"
#include "daemon/served_session.h"
#include "protocol/cancel_registry.h"
#include "protocol/logger.h"
#include "protocol/message.h"
#include "protocol/outbox.h"

namespace heapleak::daemon {

// The MCP revisions heapleakd speaks, newest first: the TypeScript SDK's
// latest and the one before it.
inline constexpr const char* kMcpProtocolVersions[] = {"2025-11-25", "2025-06-18"};

struct McpOptions {
  std::string server_version;
  std::shared_ptr<protocol::Logger> logger;            // null: log nothing
  std::size_t max_line_bytes = std::size_t{16} << 20;  // one message
  std::size_t tools_page_size = 0;                     // tools/list page; 0: all at once
  protocol::ProgressOptions progress;
};

class McpSession : public ServedSession {
 public:
  McpSession(std::shared_ptr<const McpTools> tools, McpOptions options, Sink sink);
  ~McpSession() override;

  void feed(std::string_view bytes) override;
  void finish_input() override;
  void close() override;
  std::size_t in_flight() const override { return cancels_->size(); }
  // MCP has no exit message: the client closing stdin is the normal end.
  std::optional<int> exit_code() const override { return 0; }

 private:
  void handle_line(const std::string& line);
  void handle_request(const protocol::Request& request);
  void handle_notification(const protocol::Notification& notification);
  void initialize(const protocol::Request& request);
  void list_tools(const protocol::Request& request);
  void call_tool(const protocol::Request& request);
  void reply(const boost::json::value& id, boost::json::value result);
  void fail(const boost::json::value& id, int code, std::string message);

  std::shared_ptr<const McpTools> tools_;
  McpOptions options_;
  std::shared_ptr<protocol::Logger> logger_;
  std::shared_ptr<protocol::Outbox> outbox_;
  std::shared_ptr<protocol::CancelRegistry> cancels_;
  McpLineReader reader_;
  std::atomic<bool> initialized_{false};
};

// heapleakd --mcp's sessions, for Connection / StdioServer.
SessionFactory mcp_sessions(std::shared_ptr<const McpTools> tools, McpOptions options);

}  // namespace heapleak::daemon
