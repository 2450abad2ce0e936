// Leak rows built by hand for the units of heapleak check's baseline,
// verdict and writers: the fields those read (key, signature, counts,
// classes with sites, path names, noise reason), no heap behind them.
#pragma once

#include <string>
#include <vector>

#include "core/explain/explain_pipeline.h"

namespace heapleak::test {

// A leak row: `classes` as {name, count, memsize, {sites...}}; each site
// "file:line" counts all the class's objects.
struct RowClass {
  std::string name;
  std::uint64_t count = 0, memsize = 0;
  std::vector<std::string> sites;
};
LeakCluster leak_row(const std::string& key, const std::string& signature, std::uint64_t retained,
                     const std::vector<RowClass>& classes);

LeakCluster noise_row(const std::string& key, const std::string& signature, NoiseReason reason);

}  // namespace heapleak::test
