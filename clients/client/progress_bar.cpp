#include "clients/client/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <string_view>

#include "results/text/utf8_text.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

void write_stderr(std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(2, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string string_field(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

}  // namespace

void ProgressBar::update(const json::value& params) {
  if (!enabled_ || !params.is_object()) return;
  const json::value* value = params.as_object().if_contains("value");
  if (!value || !value->is_object()) return;
  const json::object& report = value->as_object();
  const std::string kind = string_field(report, "kind");
  if (kind == "end") {
    clear();
    return;
  }
  if (kind == "begin") title_ = string_field(report, "title");
  if (const json::value* pct = report.if_contains("percentage"); pct && pct->is_number()) {
    percentage_ = static_cast<unsigned>(std::clamp(pct->to_number<double>(), 0.0, 100.0));
  }
  if (report.contains("message")) message_ = string_field(report, "message");
  draw();
}

void ProgressBar::draw() {
  // "Loading B.json [#######-------]  45% 8 of 18 MiB", cut to the width.
  const std::string prefix = title_.empty() ? "Working" : title_;
  const std::string suffix = std::to_string(percentage_) + "% " + message_;
  const int room = width_ - 1 - static_cast<int>(prefix.size() + suffix.size()) - 4;
  const int bar = std::clamp(room, 0, 40);
  std::string line = "\r" + prefix + " ";
  if (bar >= 5) {
    const int filled = bar * static_cast<int>(percentage_) / 100;
    line += "[" + std::string(filled, '#') + std::string(bar - filled, '-') + "] ";
  }
  line += suffix;
  if (static_cast<int>(line.size()) > width_)
    line = std::string(text::utf8_prefix(line, static_cast<std::size_t>(std::max(width_, 1))));
  write_stderr(line + "\x1b[K");
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!drawn_) return;
  write_stderr("\r\x1b[K");
  drawn_ = false;
}

}  // namespace heapleak::client
