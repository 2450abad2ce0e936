// explain's `memory` member (results/memory_json.h) as text: the RSS growth
// from the first dump to the last split into its parts in one line, the
// verdict in one line, what to try and the doc that explains the numbers,
// then the accounting's notes. explain_text puts it before the leak rows when
// RSS was recorded and after them when not (hand-taken dumps: the first line
// is then the leak, not what is missing), so both CLIs and MCP print the one
// block.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <string>

#include "results/text/text_doc.h"

namespace heapleak::text {

// Appends the block (nothing when `memory` is not an object).
void add_memory_block(Doc& doc, const boost::json::value& memory);

// Whether the block has RSS figures (capture manifests, version 2).
bool rss_recorded(const boost::json::value& memory);

// A growth for people, signed: "+82.7 MiB", "-312.0 KiB", "+0 B".
std::string signed_bytes(std::int64_t bytes);

}  // namespace heapleak::text
