#include "results/sarif.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <vector>

#include "results/gate_json.h"
#include "results/leak_message.h"
#include "results/text/human_bytes.h"

namespace heapleak::results {
namespace json = boost::json;
using text::grouped;

namespace {

constexpr const char* kLeakRule = "heapleak/leak";
constexpr const char* kFingerprint = "heapleakSignature/v1";

// RFC 3986: keep unreserved characters and '/', percent-encode the rest.
std::string uri_escape(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || c == '/') {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', hex[c >> 4], hex[c & 15]};
    }
  }
  return out;
}

std::string with_slash(std::string dir) {
  if (dir.empty() || dir.back() != '/') dir.push_back('/');
  return dir;
}

// Ruby writes "<internal:kernel>", "(eval)" or "-e" for code with no file:
// those sites cannot be placed in a source tree.
bool is_source_file(const std::string& file) {
  return !file.empty() && file.front() != '<' && file.front() != '(' && file != "-e";
}

// Sites come from the dump: `..` in one must not lead out of --source-root.
// They are normalized first; one that leaves the root is written absolute
// (or, relative, without the root as its base).
json::object artifact_location(const std::string& site_file, const std::string& root) {
  const std::string file = std::filesystem::path(site_file).lexically_normal().string();
  if (file.front() == '/') {
    if (!root.empty() && file.starts_with(root))
      return {{"uri", uri_escape(file.substr(root.size()))}, {"uriBaseId", "SRCROOT"}};
    return {{"uri", "file://" + uri_escape(file)}};
  }
  // A relative path is relative to where the program ran: the source root
  // when one is given (CI runs the tests from the checkout).
  json::object out{{"uri", uri_escape(file)}};
  const bool leaves = file == ".." || file.starts_with("../");
  if (!root.empty() && !leaves) out["uriBaseId"] = "SRCROOT";
  return out;
}

struct Site {
  std::string site;
  std::uint64_t count = 0;
  std::string classes;  // "1,800 String, 300 Hash"
};

// The row's allocation sites over all its classes, most objects first.
std::vector<Site> row_sites(const LeakCluster& row) {
  std::map<std::string, Site> by_site;
  for (const ClusterClass& entry : row.classes) {
    for (const SiteCount& site : entry.sites) {
      Site& out = by_site[site.site];
      out.site = site.site;
      out.count += site.count;
      out.classes += (out.classes.empty() ? "" : ", ") + grouped(site.count) + " " + entry.name;
    }
  }
  std::vector<Site> sites;
  for (auto& [name, site] : by_site) sites.push_back(std::move(site));
  std::stable_sort(sites.begin(), sites.end(),
                   [](const Site& x, const Site& y) { return x.count > y.count; });
  return sites;
}

json::array physical_locations(const LeakCluster& row, const std::string& root) {
  json::array locations;
  for (const Site& site : row_sites(row)) {
    const SiteParts parts = split_site(site.site);
    if (!is_source_file(parts.file)) continue;
    json::object physical{{"artifactLocation", artifact_location(parts.file, root)}};
    if (parts.line > 0) physical["region"] = json::object{{"startLine", parts.line}};
    locations.push_back(
        json::object{{"physicalLocation", std::move(physical)},
                     {"message", json::object{{"text", site.classes + " allocated here"}}}});
  }
  return locations;
}

// Where the leak is in Ruby's terms, for dumps without allocation sites.
json::array logical_location(const LeakCluster& row) {
  std::string path;
  for (const auto& name : row.path_names) path += (path.empty() ? "" : " -> ") + name;
  json::object logical{{"name", row.key}, {"kind", "object"}};
  if (!path.empty()) logical["fullyQualifiedName"] = path;
  return json::array{json::object{{"logicalLocations", json::array{std::move(logical)}}}};
}

json::object row_properties(const LeakCluster& row) {
  json::array path_names;
  for (const auto& name : row.path_names) path_names.emplace_back(name);
  return json::object{{"signature", row.signature},
                      {"holder", row.key},
                      {"reach", row.reach.kind + " " + row.reach.name},
                      {"root", row.reach.root},
                      {"count", row.count},
                      {"memsize", row.memsize},
                      {"retained", row.retained},
                      {"pathNames", std::move(path_names)}};
}

json::object rule(const std::string& id, const std::string& name, const std::string& short_text,
                  const std::string& full_text, const char* level) {
  return json::object{{"id", id},
                      {"name", name},
                      {"shortDescription", json::object{{"text", short_text}}},
                      {"fullDescription", json::object{{"text", full_text}}},
                      {"help", json::object{{"text", full_text}}},
                      {"defaultConfiguration", json::object{{"level", level}}}};
}

std::string rule_name(const std::string& reason) {
  std::string name = "ProbablyNotALeak";
  name += static_cast<char>(std::toupper(static_cast<unsigned char>(reason.front())));
  name += reason.substr(1);
  return name;
}

}  // namespace

SiteParts split_site(const std::string& site) {
  const std::size_t colon = site.rfind(':');
  if (colon == std::string::npos || colon + 1 == site.size()) return {site, 0};
  std::uint32_t line = 0;
  const char* begin = site.data() + colon + 1;
  const char* end = site.data() + site.size();
  auto [stop, error] = std::from_chars(begin, end, line);
  if (error != std::errc() || stop != end) return {site, 0};
  return {site.substr(0, colon), line};
}

json::object sarif_log(const LeakClusters& clusters, const GateVerdict& verdict,
                       const SarifOptions& options) {
  const std::string root = options.source_root.empty() ? "" : with_slash(options.source_root);
  json::array rules{rule(
      kLeakRule, "RubyHeapLeak", "Objects new between two heap dumps and still alive in a third",
      "Objects allocated between dumps A and B and still alive in C, held by one object that "
      "existed in all three (the holder) and keeps gaining them: a cache, global or instance "
      "variable that never lets go. The result lists where they were allocated and what they "
      "keep alive.",
      "error")};
  std::map<std::string, std::size_t> rule_index;  // noise reason -> index in rules
  for (const LeakCluster& row : clusters.noise)
    rule_index[std::string(noise_reason_name(row.noise))] = 0;
  for (auto& [reason, index] : rule_index) {
    index = rules.size();
    // Any row will do for the explanation: it depends on the reason only.
    const auto it = std::find_if(
        clusters.noise.begin(), clusters.noise.end(),
        [&](const LeakCluster& row) { return reason == noise_reason_name(row.noise); });
    rules.push_back(
        rule("heapleak/noise/" + reason, rule_name(reason), "Probably not a leak: " + reason,
             "Probably not a leak: " + std::string(noise_reason_why(it->noise)), "note"));
  }

  json::array results;
  for (const GateRow& gate_row : verdict.rows) {
    const LeakCluster& row = *gate_row.row;
    json::array locations = physical_locations(row, root);
    const bool at_sites = !locations.empty();
    if (!at_sites) locations = logical_location(row);
    std::string text = leak_sentence(row, at_sites);
    json::object properties = row_properties(row);
    if (gate_row.is_new()) {
      text += gate_row.failed ? " (new leak: fails the gate)" : " (new leak, within budget)";
    } else {
      text += " (in the baseline";
      if (gate_row.grew) {
        char factor[32];
        std::snprintf(factor, sizeof factor, "%.1f", *gate_row.growth);
        text += std::string(", grew ") + factor + "x";
      }
      text += ")";
      properties["baselineRetained"] = gate_row.baseline->retained;
      properties["baselineCount"] = gate_row.baseline->count;
      if (gate_row.growth) properties["growth"] = *gate_row.growth;
    }
    results.push_back(
        json::object{{"ruleId", kLeakRule},
                     {"ruleIndex", 0},
                     {"level", gate_row.failed ? "error" : "warning"},
                     {"message", json::object{{"text", std::move(text)}}},
                     {"locations", std::move(locations)},
                     {"partialFingerprints", json::object{{kFingerprint, row.signature}}},
                     {"baselineState", gate_row.is_new() ? "new"
                                       : gate_row.grew   ? "updated"
                                                         : "unchanged"},
                     {"properties", std::move(properties)}});
  }
  for (const LeakCluster& row : clusters.noise) {
    const std::string reason(noise_reason_name(row.noise));
    // No physical location: a note on every line that loads code or fills
    // an inline cache would bury the real leaks in a pull request.
    results.push_back(
        json::object{{"ruleId", "heapleak/noise/" + reason},
                     {"ruleIndex", rule_index[reason]},
                     {"level", "note"},
                     {"message", json::object{{"text", "Probably not a leak (" + reason +
                                                           "): " + leak_sentence(row, false)}}},
                     {"locations", logical_location(row)},
                     {"partialFingerprints", json::object{{kFingerprint, row.signature}}},
                     {"properties", row_properties(row)}});
  }

  json::array fixed, reasons;
  for (const BaselineEntry& entry : verdict.fixed) {
    fixed.push_back(json::object{{"signature", entry.signature},
                                 {"key", entry.key},
                                 {"count", entry.count},
                                 {"retained", entry.retained}});
  }
  for (const auto& reason : verdict.reasons) reasons.emplace_back(reason);
  json::object driver{{"name", "heapleak"},
                      {"version", options.tool_version},
                      {"semanticVersion", options.tool_version},
                      {"rules", std::move(rules)}};
  json::object run{{"tool", json::object{{"driver", std::move(driver)}}},
                   {"results", std::move(results)},
                   {"properties", json::object{{"verdict", verdict.passed ? "pass" : "fail"},
                                               {"reasons", std::move(reasons)},
                                               {"fixed", std::move(fixed)},
                                               {"memory", gate_memory_json(verdict)}}}};
  if (!root.empty()) {
    run["originalUriBaseIds"] =
        json::object{{"SRCROOT", json::object{{"uri", "file://" + uri_escape(root)}}}};
  }
  return json::object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                      {"version", "2.1.0"},
                      {"runs", json::array{std::move(run)}}};
}

}  // namespace heapleak::results
