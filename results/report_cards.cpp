#include "results/report_cards.h"

#include <boost/json/array.hpp>
#include <string>

#include "results/text/memory_text.h"
#include "results/text/render.h"

namespace heapleak::results {
namespace json = boost::json;

namespace {

std::string line_text(const text::Line& line) {
  std::string out;
  for (const text::Span& span : line.spans) out += span.text;
  return out;
}

// explain_text starts a leak row with a span "N. " and a noise row with "-  ".
bool starts_leak(const text::Line& line) {
  if (line.spans.empty()) return false;
  const std::string& first = line.spans.front().text;
  if (first.size() < 3 || first.substr(first.size() - 2) != ". ") return false;
  return first.find_first_not_of("0123456789") == first.size() - 2;
}

bool starts_noise(const text::Line& line) {
  return !line.spans.empty() && line.spans.front().text == "-  ";
}

}  // namespace

json::object report_cards(const json::value& explain) {
  // The memory block (explain_text's first lines) is a part of the page's
  // own: the cards are cut from the rest, whose first line is the leaks' head.
  json::array memory;
  json::value rows = explain;
  if (rows.is_object()) {
    if (const json::value* block = rows.as_object().if_contains("memory")) {
      text::Doc memory_doc;
      text::add_memory_block(memory_doc, *block);
      for (const auto& part : memory_doc.blocks)
        if (const auto* line = std::get_if<text::Line>(&part); line && !line_text(*line).empty())
          memory.emplace_back(line_text(*line));
    }
    rows.as_object().erase("memory");
  }
  const text::Doc doc = text::explain_text(rows, {" (--limit 0 shows all)"});
  json::array leaks;
  json::array noise;
  json::array more;
  json::array* row = nullptr;  // the row the lines go to
  std::string head;
  for (const auto& block : doc.blocks) {
    const auto* line = std::get_if<text::Line>(&block);
    if (!line) continue;
    const std::string text = line_text(*line);
    if (head.empty()) {
      head = text;
      continue;
    }
    if (starts_leak(*line)) {
      leaks.emplace_back(json::array{});
      row = &leaks.back().as_array();
    } else if (starts_noise(*line)) {
      noise.emplace_back(json::array{});
      row = &noise.back().as_array();
    } else if (text.rfind("... ", 0) == 0) {
      more.emplace_back(text);
      row = nullptr;
      continue;
    } else if (text.empty() || text.rfind("Probably not leaks", 0) == 0 || text == "   none") {
      row = nullptr;
      continue;
    }
    if (row) row->emplace_back(text);
  }
  json::array warnings;
  for (const std::string& warning : doc.warnings) warnings.emplace_back(warning);
  return {{"head", head},
          {"memory", std::move(memory)},
          {"leaks", std::move(leaks)},
          {"noise", std::move(noise)},
          {"more", std::move(more)},
          {"warnings", std::move(warnings)}};
}

}  // namespace heapleak::results
