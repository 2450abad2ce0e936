#include "core/identity.h"

namespace heapleak {

IdentityRule IdentityRule::between(const Heap& x, const Heap& y) {
  IdentityRule rule;
  rule.allocation_site = x.has_allocation_info() && y.has_allocation_info();
  rule.generation = x.has_generation() && y.has_generation();
  rule.first_reference = !rule.generation;
  return rule;
}

std::string IdentityRule::describe() const {
  std::string text = "address+type+class name+value";
  if (allocation_site) text += "+allocation site";
  if (generation) text += "+generation";
  if (first_reference) text += "+first reference";
  return text;
}

bool same_object(const IdentityRule& rule, const Heap& x, ObjectIndex i, const Heap& y,
                 ObjectIndex j) {
  if (x.type(i) != y.type(j)) return false;
  if (x.value_hash(i) != y.value_hash(j)) return false;
  if (rule.generation && x.generation(i) != y.generation(j)) return false;
  if (rule.allocation_site && (x.line(i) != y.line(j) || x.file(i) != y.file(j))) return false;
  if (rule.first_reference && x.first_ref(i) != 0 && y.first_ref(j) != 0 &&
      x.first_ref(i) != y.first_ref(j)) {
    return false;
  }
  if (x.own_name(i) != y.own_name(j)) return false;  // class name, DATA struct, IMEMO kind
  if (x.type(i) == ObjectType::kImemo) return true;  // IMEMO class fields are junk
  return x.class_name(i) == y.class_name(j);
}

}  // namespace heapleak
