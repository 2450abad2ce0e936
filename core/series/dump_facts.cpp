#include "core/series/dump_facts.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>

namespace heapleak {
namespace {

bool digits(std::string_view text, std::size_t at, std::size_t n, int& out) {
  if (at + n > text.size()) return false;
  out = 0;
  for (std::size_t k = at; k < at + n; ++k) {
    if (text[k] < '0' || text[k] > '9') return false;
    out = out * 10 + (text[k] - '0');
  }
  return true;
}

}  // namespace

std::optional<double> iso8601_seconds(std::string_view text) {
  int year, month, day, hour, minute, second;
  if (!digits(text, 0, 4, year) || text.size() < 19 || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != ' ') || !digits(text, 11, 2, hour) || text[13] != ':' ||
      !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  std::size_t at = 19;
  double fraction = 0, scale = 0.1;
  if (at < text.size() && text[at] == '.') {
    ++at;
    const std::size_t from = at;
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
      fraction += (text[at] - '0') * scale;
    if (at == from) return std::nullopt;
  }
  int offset = 0;  // seconds east of UTC
  const std::string_view zone = text.substr(at);
  if (zone != "Z" && zone != "") {
    int zh, zm;
    if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || !digits(zone, 1, 2, zh) ||
        zone[3] != ':' || !digits(zone, 4, 2, zm))
      return std::nullopt;
    offset = (zone[0] == '-' ? -1 : 1) * (zh * 3600 + zm * 60);
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t t = ::timegm(&tm);
  return static_cast<double>(t) - offset + fraction;
}

std::string iso8601_utc(double seconds) {
  if (!std::isfinite(seconds)) return "";
  const double whole = std::floor(seconds);
  const auto t = static_cast<std::time_t>(whole);
  int millis = static_cast<int>(std::lround((seconds - whole) * 1000));
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  if (millis == 1000) millis = 999;
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return text;
}

DumpFacts dump_facts(const std::string& path) {
  DumpFacts facts;
  facts.path = path;
  facts.manifest = read_manifest_for(path);
  if (facts.manifest) {
    if (auto seconds = iso8601_seconds(facts.manifest->dumped_at)) {
      facts.dumped_epoch = *seconds;
      facts.dumped_at = facts.manifest->dumped_at;
      facts.time_from_manifest = true;
      return facts;
    }
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    facts.dumped_epoch = std::numeric_limits<double>::quiet_NaN();
    return facts;
  }
  facts.dumped_epoch =
      static_cast<double>(info.st_mtim.tv_sec) + static_cast<double>(info.st_mtim.tv_nsec) / 1e9;
  facts.dumped_at = iso8601_utc(facts.dumped_epoch);
  return facts;
}

std::string series_of(const DumpFacts& dump) {
  if (dump.manifest) return process_key(*dump.manifest);
  const std::filesystem::path parent = std::filesystem::path(dump.path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace heapleak
