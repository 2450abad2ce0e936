// The one escaping rule for text that came from a dump (class names, file
// paths, root and heap names, string values) on its way to a terminal or a
// model: nothing in it can move the cursor, retitle a window, ring a bell or
// reorder what follows. Every renderer of results/text applies it.
#pragma once

#include <string>
#include <string_view>

namespace heapleak::text {

// `raw` with every C0 control, DEL and byte that is not valid UTF-8 written as
// \xHH, and C1 controls, bidi embeddings/overrides/isolates, marks and line
// separators as \u{HHHH}; everything else (printable UTF-8) unchanged.
std::string shown(std::string_view raw);
// A whole text of lines, the same rule but for its line breaks ('\n' kept):
// for outputs written as one text (heapleak info, cache list, check).
std::string shown_lines(std::string_view raw);

}  // namespace heapleak::text
