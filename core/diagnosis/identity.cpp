#include "core/diagnosis/identity.h"

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

std::size_t undo_unheld_lenient_matches(const IdentityRule& rule, const Heap& x, const Heap& y,
                                        std::vector<ObjectIndex>& match) {
  if (!x.has_edges() || match.size() != x.size()) return 0;
  const HeapColumns& cx = x.columns();
  const HeapColumns& cy = y.columns();
  auto one_sided = [](std::uint32_t a, std::uint32_t b) { return (a == 0) != (b == 0); };
  auto lenient = [&](ObjectIndex i, ObjectIndex j) {
    // Traced objects are told apart by generation; contents decide only
    // for the untraced ones (same_identity's by_contents).
    const bool by_contents =
        rule.contents || (rule.generation && (cx.generation.empty() || cx.generation[i] == 0));
    return by_contents && (one_sided(cx.value_hash[i], cy.value_hash[j]) ||
                           one_sided(cx.first_ref[i], cy.first_ref[j]));
  };
  std::vector<bool> is_root(x.size(), false);
  for (const auto& root : x.roots()) {
    for (ObjectIndex t : root.targets) is_root[t] = true;
  }
  // A String that turned shared in place gave its bytes to its new root:
  // the root's value is the one y showed. A new shared String (a substring,
  // a copy of another) on a dead String's slot points at other bytes.
  auto shared_elsewhere = [&](ObjectIndex i, ObjectIndex j) {
    if (cx.type[i] != ObjectType::kString || cx.value_hash[i] != 0 || cy.value_hash[j] == 0)
      return false;
    const auto refs = x.references(i);
    return refs.size() == 1 && cx.type[refs[0]] == ObjectType::kString &&
           cx.value_hash[refs[0]] != 0 && cx.value_hash[refs[0]] != cy.value_hash[j];
  };
  std::vector<ObjectIndex> undo;
  for (ObjectIndex i = 0; i < x.size(); ++i) {
    const ObjectIndex j = match[i];
    if (j == kNoObject || !lenient(i, j)) continue;
    if (shared_elsewhere(i, j)) {
      undo.push_back(i);
      continue;
    }
    if (is_root[i]) continue;
    bool held_by_old = false;
    for (ObjectIndex r : x.referrers(i)) {
      if (r != i && match[r] != kNoObject) {
        held_by_old = true;
        break;
      }
    }
    if (!held_by_old) undo.push_back(i);
  }
  for (ObjectIndex i : undo) match[i] = kNoObject;
  return undo.size();
}

bool SameObject::operator()(ObjectIndex i, ObjectIndex j) const {
  return same_identity(rule_, x_, i, y_, j,
                       [&](std::uint32_t a, std::uint32_t b) { return x_to_y_[a] == b; });
}

}  // namespace heapleak
