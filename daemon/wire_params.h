// Params of heapleakd's methods as plain structs, decoded from JSON in one
// place (field errors become -32602 with the field's path). Results are built
// with results/. Wire names stay camelCase; C++ names snake_case.
#pragma once

#include <boost/json/value.hpp>
#include <boost/json/value_to.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace heapleak::daemon {

struct LoadHeapParams {
  std::string path;
  std::optional<std::string> name;
};

struct HeapParams {  // unloadHeap
  std::string heap;
};

struct StatsParams {
  std::string baseline;
  std::string target;
  std::optional<std::string> later;
  // explain's series D1..DN (N >= 3), instead of the three above: they are
  // then D1, D(N-1) and DN.
  std::vector<std::string> heaps;
  std::string group_by = "class";
  std::optional<std::size_t> limit;  // absent: the method's default; 0: every group
  std::size_t samples = 50;          // addresses per group
};

struct RootParams {
  std::string heap;
  std::vector<std::string> addresses;
  std::size_t min_samples = 0;
  std::size_t max_visits = 20'000'000;  // reference visits of the backward search
};

struct AddressParams {  // pathToRoot, object
  std::string heap;
  std::string address;
};

struct PageParams {  // referrers, references
  std::string heap;
  std::string address;
  std::size_t offset = 0;
  std::size_t limit = 100;
};

struct TopParams {  // topRetainers, duplicateStrings
  std::string heap;
  std::size_t limit = 20;
  std::string group_by = "object";
};

struct DominatorTreeParams {  // dominatorTree
  std::string heap;
  std::optional<std::string> root;  // absent: the super-root above every GC root
  std::size_t depth = 2;
  std::uint64_t min_bytes = 0;
  std::size_t limit = 50;
};

DominatorTreeParams tag_invoke(boost::json::value_to_tag<DominatorTreeParams>,
                               const boost::json::value& v);
TopParams tag_invoke(boost::json::value_to_tag<TopParams>, const boost::json::value& v);
LoadHeapParams tag_invoke(boost::json::value_to_tag<LoadHeapParams>, const boost::json::value& v);
HeapParams tag_invoke(boost::json::value_to_tag<HeapParams>, const boost::json::value& v);
StatsParams tag_invoke(boost::json::value_to_tag<StatsParams>, const boost::json::value& v);
RootParams tag_invoke(boost::json::value_to_tag<RootParams>, const boost::json::value& v);
AddressParams tag_invoke(boost::json::value_to_tag<AddressParams>, const boost::json::value& v);
PageParams tag_invoke(boost::json::value_to_tag<PageParams>, const boost::json::value& v);

}  // namespace heapleak::daemon
