#include "tests/results/gate_rows.h"

namespace heapleak::test {

LeakCluster leak_row(const std::string& key, const std::string& signature, std::uint64_t retained,
                     const std::vector<RowClass>& classes) {
  LeakCluster row;
  row.key = key;
  row.signature = signature;
  row.retained = retained;
  row.reach = Reach{"class", "Cache", "vm"};
  row.path_names = {"ROOT vm", "Object", "Cache", "Hash"};
  for (const RowClass& entry : classes) {
    ClusterClass out;
    out.key = out.name = entry.name;
    out.count = entry.count;
    out.memsize = entry.memsize;
    for (const auto& site : entry.sites) out.sites.push_back({site, entry.count});
    row.count += entry.count;
    row.memsize += entry.memsize;
    row.classes.push_back(std::move(out));
  }
  return row;
}

LeakCluster noise_row(const std::string& key, const std::string& signature, NoiseReason reason) {
  LeakCluster row = leak_row(key, signature, 80, {{"IMEMO:ment", 2, 80, {"/app/lib/a.rb:3"}}});
  row.noise = reason;
  return row;
}

}  // namespace heapleak::test
