#include "clients/client/command_context.h"

#include "clients/client/exit_codes.h"
#include "clients/client/interrupt.h"

namespace heapleak::client {

CommandContext::CommandContext(Args args, Terminal term) : args_(std::move(args)), term_(term) {
  daemon_.socket = args_.value("--socket");
  daemon_.spawn = args_.has("--spawn");
  daemon_.idle_timeout = static_cast<unsigned>(args_.number("--idle-timeout", 600));
}

RpcClient& CommandContext::open(bool may_start, bool initialize) {
  if (!rpc_) {
    // From here on Ctrl-C cancels the request in flight instead of killing us.
    install_interrupt_handler();
    DaemonOptions options = daemon_;
    options.may_start = may_start;
    auto transport = reach_daemon(options);
    if (!transport) throw ClientError{kExitUnreachable, "no heapleakd is running"};
    rpc_ = std::make_unique<RpcClient>(std::move(*transport));
  }
  if (initialize && !initialized_) {
    rpc_->initialize();
    initialized_ = true;
  }
  return *rpc_;
}

RpcClient& CommandContext::rpc() { return open(true, true); }

RpcClient& CommandContext::raw_rpc() { return open(true, false); }

RpcClient* CommandContext::rpc_if_running() {
  DaemonOptions options = daemon_;
  options.may_start = false;
  if (!rpc_) {
    auto transport = reach_daemon(options);
    if (!transport) return nullptr;
    rpc_ = std::make_unique<RpcClient>(std::move(*transport));
  }
  return &open(false, true);
}

}  // namespace heapleak::client
