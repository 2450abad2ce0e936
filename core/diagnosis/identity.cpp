#include "core/diagnosis/identity.h"

#include <string_view>
#include <unordered_map>

#include "core/heap/naming_runtime.h"

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

// The rule's tests, in order, on two heaps' columns. Names (file, own name,
// class name) are string ids of each heap's pool: `same_name(x_id, y_id)`
// says whether they name the same text. Optional columns read as 0
// ("absent") when a heap lacks them.
template <class SameName>
bool same_identity(const IdentityRule& rule, const HeapColumns& x, ObjectIndex i,
                   const HeapColumns& y, ObjectIndex j, const SameName& same_name) {
  auto at = [](const Column<std::uint32_t>& column, ObjectIndex k) {
    return column.empty() ? 0 : column[k];
  };
  auto class_name_id = [](const HeapColumns& c, ObjectIndex k) {
    const ObjectIndex klass = c.class_index[k];
    return klass == kNoObject ? StringPool::kEmpty : c.own_name[klass];
  };
  if (x.type[i] != y.type[j]) return false;
  bool by_contents = rule.contents;
  if (rule.generation) {
    if (at(x.generation, i) != at(y.generation, j)) return false;
    // Objects allocated before tracing began carry no site or generation on
    // either side: only their contents can tell a reused slot apart.
    if (at(x.generation, i) == 0) by_contents = true;
  }
  if (rule.allocation_site &&
      (at(x.line, i) != at(y.line, j) || !same_name(at(x.file, i), at(y.file, j))))
    return false;
  if (by_contents) {
    if (!agree_when_both(x.value_hash[i], y.value_hash[j])) return false;
    if (!agree_when_both(x.first_ref[i], y.first_ref[j])) return false;
  }
  // Class name, DATA struct, IMEMO kind.
  if (!same_name(x.own_name[i], y.own_name[j])) return false;
  if (x.type[i] == ObjectType::kImemo) return true;  // IMEMO class fields are junk
  return same_name(class_name_id(x, i), class_name_id(y, j));
}

}  // namespace

bool same_object(const IdentityRule& rule, const Heap& x, ObjectIndex i, const Heap& y,
                 ObjectIndex j) {
  const HeapColumns& cx = x.columns();
  const HeapColumns& cy = y.columns();
  return same_identity(rule, cx, i, cy, j, [&](std::uint32_t a, std::uint32_t b) {
    return cx.names.at(a) == cy.names.at(b);
  });
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

bool SameObject::operator()(ObjectIndex i, ObjectIndex j) const {
  return same_identity(rule_, x_, i, y_, j,
                       [&](std::uint32_t a, std::uint32_t b) { return x_to_y_[a] == b; });
}

bool same_container(const Heap& x, ObjectIndex i, const Heap& y, ObjectIndex j) {
  if (x.type(i) != y.type(j) || x.class_name(i) != y.class_name(j)) return false;
  const auto gx = x.generation(i), gy = y.generation(j);
  return !gx || !gy || *gx == *gy;
}

bool same_thread(const Heap& x, ObjectIndex i, const Heap& y, ObjectIndex j) {
  return is_thread(x, i) && is_thread(y, j);
}

std::optional<ObjectIndex> same_container_in(const Heap& target, ObjectIndex object,
                                             const Heap& other) {
  if (&other == &target) return object;
  const auto j = other.find(target.address(object));
  if (!j || (!same_container(target, object, other, *j) && !same_thread(target, object, other, *j)))
    return std::nullopt;
  return j;
}

}  // namespace heapleak
