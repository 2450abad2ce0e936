// Rendering dot text with Graphviz: finds `dot` on PATH and pipes the graph
// through `dot -Tsvg|-Tpng` into a file or stdout. Never installs anything;
// when dot is missing the caller says how to get it.
#pragma once

#include <optional>
#include <string>

#include "clients/client/client_args.h"

namespace heapleak::client {

// The dot executable on PATH, or nullopt.
std::optional<std::string> find_dot();

// What to tell a user without Graphviz.
std::string graphviz_install_hint();

// Renders `dot_text` as `format` (svg or png) into `output` ("" = stdout).
// Returns an error message, or "" on success.
std::string render_graph(const std::string& dot_binary, const std::string& dot_text,
                         const std::string& format, const std::string& output);

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
