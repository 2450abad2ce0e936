// What every command gets: its parsed arguments, the terminal, and a lazily
// opened, initialized connection to heapleakd (commands check their
// arguments first, so a usage error never starts a daemon).
#pragma once

#include <memory>

#include "clients/client/client_args.h"
#include "clients/client/daemon_finder.h"
#include "clients/client/rpc_client.h"
#include "clients/client/terminal.h"

namespace heapleak::client {

class CommandContext {
 public:
  CommandContext(Args args, Terminal term);

  const Args& args() const { return args_; }
  const Terminal& term() const { return term_; }
  bool json() const { return args_.has("--json"); }
  const DaemonOptions& daemon_options() const { return daemon_; }

  // The initialized connection, started on first use (throws ClientError).
  RpcClient& rpc();
  // The connection if a daemon is already listening; never starts one.
  RpcClient* rpc_if_running();
  // rpc() without initialize (the `rpc` command may send its own).
  RpcClient& raw_rpc();

 private:
  RpcClient& open(bool may_start, bool initialize);

  Args args_;
  Terminal term_;
  DaemonOptions daemon_;
  std::unique_ptr<RpcClient> rpc_;
  bool initialized_ = false;
};

}  // namespace heapleak::client
