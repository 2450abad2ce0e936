// Where heapleak-client's graphs go (--format dot|svg|png, -o FILE), checked
// before any request; the rendering itself is clients/common's (shared with
// heapleak root).
#pragma once

#include <optional>
#include <string>

#include "clients/client/client_args.h"
#include "clients/common/graphviz_render.h"

namespace heapleak::client {

// Where a command's graph goes: --format dot|svg|png and -o FILE.
struct GraphOutput {
  std::string format = "dot";
  std::string file;                       // "" = stdout
  std::optional<std::string> dot_binary;  // for svg/png
};

// Reads and checks --format and -o before any request: a usage error for an
// unknown format or png to a terminal, exit 11 when svg/png needs a missing
// Graphviz (not checked with --json, which writes no graph).
GraphOutput graph_output(const Args& args, bool json);

// Writes `dot_text` (rendered when svg/png) where `out` says; throws ClientError.
void write_graph(const GraphOutput& out, const std::string& dot_text);

}  // namespace heapleak::client
