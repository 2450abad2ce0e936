// One function per heapleak-client command. Each checks its own arguments,
// talks to heapleakd through the context, prints, and returns an exit code
// (or throws ClientError). Grouped in files by family like the daemon's.
#pragma once

#include "clients/client/command_context.h"

namespace heapleak::client {

int run_load(CommandContext& ctx);  // heap_commands.cpp
int run_list(CommandContext& ctx);
int run_unload(CommandContext& ctx);
int run_stop(CommandContext& ctx);
int run_cache(CommandContext& ctx);
int run_stats(CommandContext& ctx);  // analysis_commands.cpp
int run_root(CommandContext& ctx);
int run_path(CommandContext& ctx);
int run_explain(CommandContext& ctx);  // ownership_commands.cpp
int run_report(CommandContext& ctx);   // ownership_commands.cpp
int run_owner(CommandContext& ctx);
int run_top(CommandContext& ctx);
int run_retained(CommandContext& ctx);
int run_tree(CommandContext& ctx);     // tree_command.cpp
int run_inspect(CommandContext& ctx);  // browse_commands.cpp
int run_referrers(CommandContext& ctx);
int run_references(CommandContext& ctx);
int run_rpc(CommandContext& ctx);  // rpc_command.cpp

}  // namespace heapleak::client
