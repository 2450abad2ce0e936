// The MCP tools heapleakd offers, as tools/list describes them: name, title,
// description (written for a model choosing a tool), inputSchema and
// outputSchema (JSON Schema 2020-12 subsets the SDKs validate). Data only:
// mcp_tools.h runs them.
#pragma once

#include <boost/json/array.hpp>

namespace heapleak::daemon {

// One object per tool, in the order tools/list returns them.
const boost::json::array& mcp_tool_definitions();

}  // namespace heapleak::daemon
