// Rendering dot text with Graphviz, for both CLIs (heapleak root, and
// heapleak-client root and owner): finds `dot` on PATH and pipes the graph
// through `dot -Tsvg|-Tpng` into a file or stdout. Never installs anything;
// when dot is missing the caller says how to get it (install_hint).
#pragma once

#include <optional>
#include <string>

namespace heapleak::graphviz {

// The dot executable on PATH, or nullopt.
std::optional<std::string> find_dot();

// What to tell a user without Graphviz.
std::string graphviz_install_hint();

// Renders `dot_text` as `format` (svg or png) into `output` ("" = stdout).
// Returns an error message, or "" on success.
std::string render_graph(const std::string& dot_binary, const std::string& dot_text,
                         const std::string& format, const std::string& output);

}  // namespace heapleak::graphviz
