#include "results/junit.h"

#include "results/leak_message.h"
#include "results/text/utf8_text.h"

namespace heapleak::results {

namespace {

struct Case {
  std::string classname, name;
  std::string failure_type, failure_message;  // empty type: passed
  std::string skipped;                        // non-empty: skipped with this message
  std::string out;                            // system-out
};

std::string attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_escape(value) + "\"";
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const char c = text[at];
    switch (c) {
      case '&':
        out += "&amp;";
        ++at;
        continue;
      case '<':
        out += "&lt;";
        ++at;
        continue;
      case '>':
        out += "&gt;";
        ++at;
        continue;
      case '"':
        out += "&quot;";
        ++at;
        continue;
      case '\'':
        out += "&apos;";
        ++at;
        continue;
      default:
        break;
    }
    // XML 1.0 allows #x9 #xA #xD, #x20-#xD7FF, #xE000-#xFFFD, #x10000-#x10FFFF
    // and well-formed UTF-8 only, even escaped: other characters (controls,
    // U+FFFE, U+FFFF) are dropped, bytes that are not UTF-8 become U+FFFD.
    const std::size_t begin = at;
    const char32_t code = text::next_code_point(text, at);
    const bool allowed = code == 0x9 || code == 0xA || code == 0xD ||
                         (code >= 0x20 && code <= 0xD7FF) || (code >= 0xE000 && code <= 0xFFFD) ||
                         code >= 0x10000;
    if (!allowed) continue;
    if (code == 0xFFFD && at - begin == 1) {
      out += "\xEF\xBF\xBD";  // a byte that starts no character
    } else {
      out.append(text, begin, at - begin);
    }
  }
  return out;
}

std::string junit_xml(const LeakClusters& clusters, const GateVerdict& verdict) {
  std::vector<Case> cases;
  for (const GateRow& row : verdict.rows) {
    Case c;
    c.classname = "heapleak.leak";
    c.name = row.row->key + " [" + row.row->signature + "]";
    const std::string sentence = leak_sentence(*row.row, false);
    if (row.failed) {
      c.failure_type = row.is_new() ? "newLeak" : "grownLeak";
      c.failure_message = (row.is_new() ? "new leak: " : "known leak grew: ") + sentence;
    }
    c.out = sentence + (row.is_new() ? " (new)" : " (in the baseline)");
    cases.push_back(std::move(c));
  }
  for (const LeakCluster& row : clusters.noise) {
    Case c;
    c.classname = "heapleak.noise";
    c.name = row.key + " [" + row.signature + "]";
    c.skipped = "probably not a leak (" + std::string(noise_reason_name(row.noise)) +
                "): " + std::string(noise_reason_why(row.noise));
    cases.push_back(std::move(c));
  }
  if (verdict.memory) {
    // The memory budgets' own case, so a CI report names what failed.
    const GateMemory& m = *verdict.memory;
    Case memory;
    memory.classname = "heapleak.memory";
    memory.name = "within memory budget";
    memory.out = "memory: " + m.verdict_line;
    if (m.over_rss || m.over_unexplained) {
      memory.failure_type = "memoryBudget";
      for (const auto& reason : verdict.reasons)
        if (reason.find("--max-rss-growth") != std::string::npos ||
            reason.find("--max-unexplained") != std::string::npos)
          memory.failure_message += (memory.failure_message.empty() ? "" : "; ") + reason;
    }
    cases.push_back(std::move(memory));
  }
  Case budget;
  budget.classname = "heapleak.gate";
  budget.name = "within budget";
  if (!verdict.passed) {
    budget.failure_type = "gateFailed";
    for (const auto& reason : verdict.reasons)
      budget.failure_message += (budget.failure_message.empty() ? "" : "; ") + reason;
  }
  for (const BaselineEntry& entry : verdict.fixed)
    budget.out += "fixed: " + entry.key + " [" + entry.signature + "] is no longer seen\n";
  cases.push_back(std::move(budget));

  std::size_t failures = 0, skipped = 0;
  for (const Case& c : cases) {
    failures += !c.failure_type.empty();
    skipped += !c.skipped.empty();
  }
  const std::string counts = attr("tests", std::to_string(cases.size())) +
                             attr("failures", std::to_string(failures)) + attr("errors", "0") +
                             attr("skipped", std::to_string(skipped));
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" +
                    attr("name", "heapleak check") + counts + ">\n  <testsuite" +
                    attr("name", "heapleak check") + counts + attr("time", "0") + ">\n";
  for (const Case& c : cases) {
    xml += "    <testcase" + attr("classname", c.classname) + attr("name", c.name) +
           attr("time", "0") + ">\n";
    if (!c.failure_type.empty()) {
      xml += "      <failure" + attr("type", c.failure_type) + attr("message", c.failure_message) +
             ">" + xml_escape(c.failure_message) + "</failure>\n";
    }
    if (!c.skipped.empty()) xml += "      <skipped" + attr("message", c.skipped) + "/>\n";
    if (!c.out.empty()) xml += "      <system-out>" + xml_escape(c.out) + "</system-out>\n";
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace heapleak::results
