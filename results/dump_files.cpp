#include "results/dump_files.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <filesystem>

#include "core/diagnosis/leak_diff.h"

namespace heapleak::results {

boost::json::object dump_files_json(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  static const char* const kRoles[] = {"baseline", "target", "later"};
  bool unique = true;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    for (std::size_t j = i + 1; j < paths.size(); ++j)
      unique = unique && fs::path(paths[i]).filename() != fs::path(paths[j]).filename();
  }
  const auto name = [&](std::size_t k) {
    return unique ? fs::path(paths[k]).filename().string() : paths[k];
  };
  boost::json::object files;
  if (paths.size() > 3) {
    const DiffRoles roles = diff_roles(paths.size());
    files["baseline"] = name(roles.baseline);
    files["target"] = name(roles.target);
    files["later"] = name(*roles.later);
    boost::json::array dumps;
    for (std::size_t k = 0; k < paths.size(); ++k) dumps.emplace_back(name(k));
    files["dumps"] = std::move(dumps);
  } else {
    for (std::size_t k = 0; k < paths.size(); ++k) files[kRoles[k]] = name(k);
  }
  return files;
}

}  // namespace heapleak::results
