#include "clients/cli/manifest_copy.h"

#include <sys/stat.h>

#include <boost/json.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "core/base/safe_write.h"
#include "core/reading/dump_manifest.h"
#include "core/redaction/string_redactor.h"

namespace heapleak::cli {
namespace {

// The strings kept as they are: what names the process and the dump's time
// (fleet's series key and growth per hour need them), and facts about Ruby,
// the GC and the capture that carry no data of the application. Every other
// string, known or added later, is masked.
const std::set<std::string>& kept_paths() {
  static const std::set<std::string> kept{"/format",
                                          "/dump",
                                          "/process/started_at",
                                          "/process/hostname",
                                          "/ruby/version",
                                          "/ruby/engine",
                                          "/ruby/platform",
                                          "/ruby/description",
                                          "/gc/name",
                                          "/capture/mode",
                                          "/capture/started_at",
                                          "/capture/finished_at",
                                          "/capture/compression",
                                          "/capture/gem_version",
                                          "/allocation_tracing/started_at"};
  return kept;
}

// A manifest is a few KiB; a bigger file is not one the gem wrote.
constexpr std::uintmax_t kMaxManifestBytes = 1 << 20;

void redact(boost::json::value& value, const std::string& path, const StringRedactor& redactor) {
  if (auto* object = value.if_object()) {
    for (auto& [key, member] : *object) redact(member, path + "/" + std::string(key), redactor);
  } else if (auto* array = value.if_array()) {
    for (auto& item : *array) redact(item, path + "/*", redactor);
  } else if (auto* text = value.if_string()) {
    if (kept_paths().count(path)) return;
    const std::string original(text->data(), text->size());
    *text = redactor.mask(original, original.size());
  }
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<bool> copy_manifest(const std::string& dump, const std::string& copy, const SipKey& key) {
  const std::string from = manifest_path_for(dump);
  struct stat st {};
  if (::stat(from.c_str(), &st) != 0) return false;  // no manifest: nothing to copy
  if (!S_ISREG(st.st_mode) || static_cast<std::uintmax_t>(st.st_size) > kMaxManifestBytes)
    return Error{ErrorReason::kNotReadable,
                 from + " is not a capture manifest (not a regular file, or over 1 MiB)"};
  std::ifstream in(from, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  boost::json::error_code error;
  boost::json::value manifest = boost::json::parse(text.str(), error);
  if (error || !manifest.is_object())
    return Error{ErrorReason::kCorruptInput, from + " is not a JSON manifest: not copied"};
  redact(manifest, "", StringRedactor(key));
  manifest.as_object()["dump"] = base_name(copy);
  if (auto* capture = manifest.as_object().if_contains("capture"); capture && capture->is_object())
    capture->as_object()["redacted"] = true;
  const std::string to = manifest_path_for(copy);
  if (to == copy) return false;  // a copy named oddly (no .json): no manifest name for it
  if (auto written =
          write_file_safely(to, boost::json::serialize(manifest) + "\n", SpecialTarget::kRefuse))
    return *written;
  return true;
}

}  // namespace heapleak::cli
