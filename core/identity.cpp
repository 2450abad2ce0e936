#include "core/identity.h"

#include <string_view>
#include <unordered_map>

namespace heapleak {

IdentityRule IdentityRule::between(const Heap& x, const Heap& y) {
  IdentityRule rule;
  rule.allocation_site = x.has_allocation_info() && y.has_allocation_info();
  rule.generation = x.has_generation() && y.has_generation();
  rule.contents = !rule.generation;
  return rule;
}

std::string IdentityRule::describe() const {
  std::string text = "address+type+class name";
  if (allocation_site) text += "+allocation site";
  if (generation) text += "+generation";
  if (contents) text += "+value+first reference (each when both have it)";
  return text;
}

namespace {

// A fingerprint decides only when both records have one: contents that
// appear or vanish in place (a string becoming shared) say nothing.
bool agree_when_both(std::uint32_t a, std::uint32_t b) { return a == 0 || b == 0 || a == b; }

}  // namespace

bool same_object(const IdentityRule& rule, const Heap& x, ObjectIndex i, const Heap& y,
                 ObjectIndex j) {
  if (x.type(i) != y.type(j)) return false;
  bool by_contents = rule.contents;
  if (rule.generation) {
    const auto gx = x.generation(i), gy = y.generation(j);
    if (gx != gy) return false;
    // Objects allocated before tracing began carry no site or generation on
    // either side: only their contents can tell a reused slot apart.
    if (!gx) by_contents = true;
  }
  if (rule.allocation_site && (x.line(i) != y.line(j) || x.file(i) != y.file(j))) return false;
  if (by_contents) {
    if (!agree_when_both(x.value_hash(i), y.value_hash(j))) return false;
    if (!agree_when_both(x.first_ref(i), y.first_ref(j))) return false;
  }
  if (x.own_name(i) != y.own_name(j)) return false;  // class name, DATA struct, IMEMO kind
  if (x.type(i) == ObjectType::kImemo) return true;  // IMEMO class fields are junk
  return x.class_name(i) == y.class_name(j);
}

SameObject::SameObject(const IdentityRule& rule, const Heap& x, const Heap& y)
    : rule_(rule), x_(x.columns()), y_(y.columns()), x_to_y_(x_.names.size(), kAbsent) {
  std::unordered_map<std::string_view, std::uint32_t> in_y;
  in_y.reserve(y_.names.size());
  for (std::uint32_t id = 0; id < y_.names.size(); ++id) in_y.emplace(y_.names.at(id), id);
  for (std::uint32_t id = 0; id < x_.names.size(); ++id) {
    if (auto found = in_y.find(x_.names.at(id)); found != in_y.end()) x_to_y_[id] = found->second;
  }
}

// The same tests as same_object, in the same order, on ids.
bool SameObject::operator()(ObjectIndex i, ObjectIndex j) const {
  if (x_.type[i] != y_.type[j]) return false;
  bool by_contents = rule_.contents;
  if (rule_.generation) {
    // Both have the column (the rule says so); 0 is "absent".
    if (x_.generation[i] != y_.generation[j]) return false;
    if (x_.generation[i] == 0) by_contents = true;
  }
  if (rule_.allocation_site) {
    const std::uint32_t lx = x_.line.empty() ? 0 : x_.line[i];
    const std::uint32_t ly = y_.line.empty() ? 0 : y_.line[j];
    if (lx != ly || x_to_y_[x_.file[i]] != y_.file[j]) return false;
  }
  if (by_contents) {
    if (!agree_when_both(x_.value_hash[i], y_.value_hash[j])) return false;
    if (!agree_when_both(x_.first_ref[i], y_.first_ref[j])) return false;
  }
  if (x_to_y_[x_.own_name[i]] != y_.own_name[j]) return false;
  if (x_.type[i] == ObjectType::kImemo) return true;
  return x_to_y_[class_name_id(x_, i)] == class_name_id(y_, j);
}

}  // namespace heapleak
