#include "results/leak_baseline.h"

#include <sys/stat.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace heapleak::results {
namespace json = boost::json;
namespace {

bool is_signature(std::string_view text) {
  return text.size() == 16 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Error bad(const std::string& origin, const std::string& what) {
  return make_error(ErrorReason::kCorruptInput,
                    origin + ": not a heapleak baseline (" + what +
                        "); write one with heapleak check --write-baseline");
}

// A required non-negative integer member of entry k.
bool take_count(const json::object& entry, const char* name, std::uint64_t& out) {
  const json::value* value = entry.if_contains(name);
  if (!value) return false;
  if (value->is_uint64()) {
    out = value->get_uint64();
    return true;
  }
  if (value->is_int64() && value->get_int64() >= 0) {
    out = static_cast<std::uint64_t>(value->get_int64());
    return true;
  }
  return false;
}

}  // namespace

const BaselineEntry* LeakBaseline::find(std::string_view signature) const {
  auto it = std::lower_bound(
      leaks.begin(), leaks.end(), signature,
      [](const BaselineEntry& entry, std::string_view sig) { return entry.signature < sig; });
  return it != leaks.end() && it->signature == signature ? &*it : nullptr;
}

LeakBaseline baseline_of(const std::vector<LeakCluster>& rows) {
  std::map<std::string, BaselineEntry> by_signature;
  for (const LeakCluster& row : rows) {
    auto [it, fresh] = by_signature.try_emplace(row.signature);
    BaselineEntry& entry = it->second;
    if (fresh) {
      entry.signature = row.signature;
      entry.key = row.key;
    }
    entry.count += row.count;
    entry.retained += row.retained;
  }
  LeakBaseline baseline;
  for (auto& [signature, entry] : by_signature) baseline.leaks.push_back(std::move(entry));
  return baseline;
}

std::string leak_baseline_text(const LeakBaseline& baseline) {
  // Written by hand, not by json::serialize, for one entry a line: a new or
  // fixed leak is then a one-line diff in review.
  std::string text =
      "{\n  \"heapleakBaseline\": " + std::to_string(kLeakBaselineVersion) + ",\n  \"leaks\": [";
  for (std::size_t k = 0; k < baseline.leaks.size(); ++k) {
    const BaselineEntry& entry = baseline.leaks[k];
    const json::object line{{"signature", entry.signature},
                            {"key", entry.key},
                            {"count", entry.count},
                            {"retained", entry.retained}};
    text += (k ? ",\n    " : "\n    ") + json::serialize(line);
  }
  text += baseline.leaks.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return text;
}

Result<LeakBaseline> parse_leak_baseline(std::string_view text, const std::string& origin) {
  boost::system::error_code ec;
  const json::value doc = json::parse(text, ec);
  if (ec) return bad(origin, "invalid JSON: " + ec.message());
  const json::object* top = doc.if_object();
  if (!top) return bad(origin, "expected an object");
  const json::value* version = top->if_contains("heapleakBaseline");
  if (!version) return bad(origin, "no \"heapleakBaseline\" version");
  if (!version->is_int64() || version->get_int64() != kLeakBaselineVersion) {
    return bad(origin, "version " + json::serialize(*version) + ", this heapleak reads version " +
                           std::to_string(kLeakBaselineVersion));
  }
  const json::value* leaks = top->if_contains("leaks");
  if (!leaks || !leaks->is_array()) return bad(origin, "\"leaks\" must be an array");
  LeakBaseline baseline;
  for (std::size_t k = 0; k < leaks->get_array().size(); ++k) {
    const std::string where = "leaks[" + std::to_string(k) + "]";
    const json::object* entry = leaks->get_array()[k].if_object();
    if (!entry) return bad(origin, where + ": expected an object");
    const json::value* signature = entry->if_contains("signature");
    if (!signature || !signature->is_string() || !is_signature(signature->get_string()))
      return bad(origin, where + ".signature: expected 16 lowercase hex digits");
    BaselineEntry out;
    out.signature = signature->get_string();
    if (const json::value* key = entry->if_contains("key")) {
      if (!key->is_string()) return bad(origin, where + ".key: expected a string");
      out.key = key->get_string();
    }
    // count and retained are what growth is measured against: required.
    if (!take_count(*entry, "count", out.count))
      return bad(origin, where + ".count: expected an integer >= 0");
    if (!take_count(*entry, "retained", out.retained))
      return bad(origin, where + ".retained: expected an integer >= 0");
    baseline.leaks.push_back(std::move(out));
  }
  // Hand-edited files may be unsorted; duplicates are a mistake worth naming.
  std::sort(
      baseline.leaks.begin(), baseline.leaks.end(),
      [](const BaselineEntry& x, const BaselineEntry& y) { return x.signature < y.signature; });
  for (std::size_t k = 1; k < baseline.leaks.size(); ++k) {
    if (baseline.leaks[k].signature == baseline.leaks[k - 1].signature)
      return bad(origin, "signature " + baseline.leaks[k].signature + " appears twice");
  }
  return baseline;
}

Result<LeakBaseline> read_leak_baseline(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    return make_error(error == ENOENT ? ErrorReason::kFileNotFound : ErrorReason::kNotReadable,
                      path + ": " + std::strerror(error));
  }
  // A FIFO or /dev/zero would never end: a baseline is a small regular file.
  if (!S_ISREG(info.st_mode))
    return make_error(ErrorReason::kNotReadable, path + ": not a regular file");
  if (info.st_size > (64 << 20))
    return make_error(ErrorReason::kNotReadable, path + ": larger than 64 MiB, not a baseline");
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorReason::kNotReadable, path + ": cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(ErrorReason::kNotReadable, path + ": read error");
  return parse_leak_baseline(text.str(), path);
}

}  // namespace heapleak::results
