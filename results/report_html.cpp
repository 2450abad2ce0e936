#include "results/report_html.h"

#include <boost/json/serialize.hpp>
#include <cstdint>

#include "results/report_assets.h"
#include "results/text/terminal_safe.h"

namespace heapleak::results {
namespace {

// Text for an HTML text node or attribute value.
std::string html_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

// U+2028/2029 (line breaks to old script parsers) and the bidi marks,
// embeddings, overrides and isolates (which reorder the page's source in an
// editor) at text[k], as a JSON escape; else null. All are E2 80 xx or E2 81 xx.
const char* escaped_mark(std::string_view text, std::size_t k) {
  if (text[k] != '\xE2' || k + 2 >= text.size()) return nullptr;
  static constexpr struct {
    char second, third;
    const char* escape;
  } kMarks[] = {
      {'\x80', '\x8E', "\\u200e"}, {'\x80', '\x8F', "\\u200f"}, {'\x80', '\xA8', "\\u2028"},
      {'\x80', '\xA9', "\\u2029"}, {'\x80', '\xAA', "\\u202a"}, {'\x80', '\xAB', "\\u202b"},
      {'\x80', '\xAC', "\\u202c"}, {'\x80', '\xAD', "\\u202d"}, {'\x80', '\xAE', "\\u202e"},
      {'\x81', '\xA6', "\\u2066"}, {'\x81', '\xA7', "\\u2067"}, {'\x81', '\xA8', "\\u2068"},
      {'\x81', '\xA9', "\\u2069"},
  };
  for (const auto& mark : kMarks)
    if (text[k + 1] == mark.second && text[k + 2] == mark.third) return mark.escape;
  return nullptr;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string json_for_script(const boost::json::value& value) {
  const std::string text = boost::json::serialize(value);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    // These occur only inside JSON strings, where \uXXXX means the same
    // character: the parsed data is unchanged, the HTML parser sees no tag,
    // comment or entity, and old script parsers no line break.
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (const char* escape = escaped_mark(text, k)) {
      out += escape;
      k += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string csp_hash_source(std::string_view sha256_hex) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  for (std::size_t k = 0; k + 1 < sha256_hex.size(); k += 2)
    bytes.push_back(
        static_cast<char>(hex_digit(sha256_hex[k]) * 16 + hex_digit(sha256_hex[k + 1])));
  std::string base64;
  for (std::size_t k = 0; k < bytes.size(); k += 3) {
    std::uint32_t n = static_cast<unsigned char>(bytes[k]) << 16;
    if (k + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[k + 1]) << 8;
    if (k + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[k + 2]);
    base64.push_back(kAlphabet[(n >> 18) & 63]);
    base64.push_back(kAlphabet[(n >> 12) & 63]);
    base64.push_back(k + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=');
    base64.push_back(k + 2 < bytes.size() ? kAlphabet[n & 63] : '=');
  }
  return "'sha256-" + base64 + "'";
}

std::string report_html(const boost::json::value& data, std::string_view title) {
  // Nothing may load from outside the file: no default source, the one
  // script and the one style by their hashes, images only as data: URLs.
  const std::string csp = "default-src 'none'; script-src " + csp_hash_source(kReportScriptSha256) +
                          "; style-src " + csp_hash_source(kReportStyleSha256) +
                          "; img-src data:; base-uri 'none'; form-action 'none'";
  std::string page;
  page.reserve(kReportScript.size() + kReportStyle.size() + 4096);
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + csp + "\">\n";
  page += "<meta name=\"referrer\" content=\"no-referrer\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += "<title>" + html_escaped(text::shown(title)) + "</title>\n";
  page += "<style>";
  page += kReportStyle;
  page += "</style>\n</head>\n<body>\n";
  page +=
      "<noscript><p>This report is drawn by the script it carries: open it in a browser with "
      "scripts allowed for local files.</p></noscript>\n";
  page += "<main id=\"report\"></main>\n";
  page += "<script type=\"application/json\" id=\"heapleak-data\">";
  page += json_for_script(data);
  page += "</script>\n<script>";
  page += kReportScript;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace heapleak::results
