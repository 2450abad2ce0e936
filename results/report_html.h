// `heapleak report`'s page: one self-contained HTML file (no network, no
// server) with the page's data embedded once as JSON, drawn by the embedded
// script (report_assets.h) under a Content-Security-Policy that allows only
// that script and style, by hash, and data: images. Dump strings stay data:
// the script sets them as text, never as markup.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

namespace heapleak::results {

// The page for `data` (report_data.h's shape); `title` goes to <title>,
// escaped.
std::string report_html(const boost::json::value& data, std::string_view title);

// `value` as JSON that can sit inside <script type="application/json">:
// `<`, `>`, `&`, U+2028/U+2029 and the bidi controls written as \uXXXX, so
// no string in it can close the element, open a comment or reorder the
// page's source, and the text still parses as the same JSON.
std::string json_for_script(const boost::json::value& value);

// The CSP source for a SHA-256 given in hex: 'sha256-BASE64'.
std::string csp_hash_source(std::string_view sha256_hex);

}  // namespace heapleak::results
