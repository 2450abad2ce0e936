#include "clients/client/graphviz.h"

#include <unistd.h>

#include <iostream>

#include "clients/client/exit_codes.h"
#include "clients/client/output.h"

namespace heapleak::client {

using graphviz::find_dot;
using graphviz::graphviz_install_hint;
using graphviz::render_graph;

GraphOutput graph_output(const Args& args, bool json) {
  GraphOutput out;
  out.format = args.value("--format").value_or("dot");
  out.file = args.value("-o").value_or("");
  if (out.format != "dot" && out.format != "svg" && out.format != "png") {
    throw ClientError{kExitUsage, "--format expects dot, svg or png, got '" + out.format + "'"};
  }
  if (out.format != "dot" && !json) {
    out.dot_binary = find_dot();
    if (!out.dot_binary) throw ClientError{kExitNoGraphviz, graphviz_install_hint()};
    if (out.format == "png" && out.file.empty() && ::isatty(1)) {
      throw ClientError{kExitUsage,
                        "--format png writes binary data; give -o FILE or redirect stdout"};
    }
  }
  return out;
}

void write_graph(const GraphOutput& out, const std::string& dot_text) {
  if (out.format == "dot") {
    if (out.file.empty()) {
      std::cout << dot_text;
      std::cout.flush();
    } else {
      write_file(out.file, dot_text);
    }
  } else if (std::string error = render_graph(*out.dot_binary, dot_text, out.format, out.file);
             !error.empty()) {
    throw ClientError{kExitCannotWrite, error};
  }
}

}  // namespace heapleak::client
