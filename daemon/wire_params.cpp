#include "daemon/wire_params.h"

#include "core/diagnosis/leak_diff.h"
#include "daemon/heap_store.h"
#include "protocol/error.h"
#include "protocol/params.h"

namespace heapleak::daemon {
using protocol::FieldReader;

namespace {
// A C string ends at NUL: the file opened would not be the path the reply shows.
void refuse_nul(const std::string& text, const char* field) {
  if (text.find('\0') != std::string::npos) {
    throw protocol::RpcException(
        protocol::invalid_params(std::string("params.") + field + ": contains a NUL byte"));
  }
}
}  // namespace

LoadHeapParams tag_invoke(boost::json::value_to_tag<LoadHeapParams>, const boost::json::value& v) {
  FieldReader r(v);
  LoadHeapParams p{r.required<std::string>("path"), r.optional<std::string>("name")};
  refuse_nul(p.path, "path");
  if (p.name) {
    refuse_nul(*p.name, "name");
    // Ids are looked up before names: a name "h2" would be shadowed by heap h2.
    if (HeapStore::looks_like_id(*p.name)) {
      throw protocol::RpcException(
          protocol::invalid_params("params.name: \"" + *p.name +
                                   "\" looks like a heap id (h<number>); choose another name"));
    }
  }
  return p;
}

HeapParams tag_invoke(boost::json::value_to_tag<HeapParams>, const boost::json::value& v) {
  FieldReader r(v);
  return {r.required<std::string>("heap")};
}

StatsParams tag_invoke(boost::json::value_to_tag<StatsParams>, const boost::json::value& v) {
  FieldReader r(v);
  StatsParams p;
  if (r.has("heaps")) {
    // A series D1..DN: read as baseline D1, target D(N-1), later DN.
    p.heaps = r.required<std::vector<std::string>>("heaps");
    if (p.heaps.size() < 3) throw protocol::ParamsError("expected 3 heaps or more", ".heaps");
    for (const char* role : {"baseline", "target", "later"})
      if (r.has(role))
        throw protocol::ParamsError("give heaps or baseline, target and later, not both",
                                    std::string(".") + role);
    const DiffRoles roles = diff_roles(p.heaps.size());
    p.baseline = p.heaps[roles.baseline];
    p.target = p.heaps[roles.target];
    p.later = p.heaps[*roles.later];
  } else {
    p.baseline = r.required<std::string>("baseline");
    p.target = r.required<std::string>("target");
    p.later = r.optional<std::string>("later");
  }
  p.group_by = r.optional<std::string>("groupBy", p.group_by);
  p.limit = r.optional<std::size_t>("limit");
  p.samples = r.optional<std::size_t>("samples", p.samples);
  return p;
}

RootParams tag_invoke(boost::json::value_to_tag<RootParams>, const boost::json::value& v) {
  FieldReader r(v);
  RootParams p;
  p.heap = r.required<std::string>("heap");
  p.addresses = r.required<std::vector<std::string>>("addresses");
  p.min_samples = r.optional<std::size_t>("minSamples", p.min_samples);
  // maxVisits is the budget's one name; maxNodes, its old name, still works.
  p.max_visits =
      r.optional<std::size_t>("maxVisits", r.optional<std::size_t>("maxNodes", p.max_visits));
  return p;
}

AddressParams tag_invoke(boost::json::value_to_tag<AddressParams>, const boost::json::value& v) {
  FieldReader r(v);
  return {r.required<std::string>("heap"), r.required<std::string>("address")};
}

PageParams tag_invoke(boost::json::value_to_tag<PageParams>, const boost::json::value& v) {
  FieldReader r(v);
  PageParams p;
  p.heap = r.required<std::string>("heap");
  p.address = r.required<std::string>("address");
  p.offset = r.optional<std::size_t>("offset", p.offset);
  p.limit = r.optional<std::size_t>("limit", p.limit);
  return p;
}

TopParams tag_invoke(boost::json::value_to_tag<TopParams>, const boost::json::value& v) {
  FieldReader r(v);
  TopParams p;
  p.heap = r.required<std::string>("heap");
  p.limit = r.optional<std::size_t>("limit", p.limit);
  p.group_by = r.optional<std::string>("groupBy", p.group_by);
  return p;
}

DominatorTreeParams tag_invoke(boost::json::value_to_tag<DominatorTreeParams>,
                               const boost::json::value& v) {
  FieldReader r(v);
  DominatorTreeParams p;
  p.heap = r.required<std::string>("heap");
  p.root = r.optional<std::string>("root");
  p.depth = r.optional<std::size_t>("depth", p.depth);
  p.min_bytes = r.optional<std::uint64_t>("minBytes", p.min_bytes);
  p.limit = r.optional<std::size_t>("limit", p.limit);
  return p;
}

}  // namespace heapleak::daemon
