#include "core/identity.h"

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

}  // namespace heapleak
