// The column values a dump record becomes (core/heap/heap.h's HeapColumns):
// one definition for HeapBuilder, which stores them, and for the streamed
// counterparts (core/diagnosis/streamed_counterparts.h), which compare them
// with B's and keep none: the two must never disagree on what a record is.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/base/address.h"
#include "core/heap/heap.h"
#include "core/reading/record_parser.h"

namespace heapleak {

inline std::uint32_t saturate32(std::uint64_t value) {
  return value > std::numeric_limits<std::uint32_t>::max()
             ? std::numeric_limits<std::uint32_t>::max()
             : static_cast<std::uint32_t>(value);
}

// The first_ref column: a reference's fingerprint, never 0 (0: none).
inline std::uint32_t address_fingerprint(Address address) {
  std::uint64_t x = address * 0x9E3779B97F4A7C15ull;
  auto folded = static_cast<std::uint32_t>(x ^ (x >> 32));
  return folded == 0 ? 1 : folded;
}

// The length column: length + 1, or (flagged) the record's reference count
// + 1, which a full load keeps for every record and an identity-only load
// for the types counts_references names; 0 when absent.
inline std::uint32_t length_column_value(const DumpRecord& record, bool full) {
  if (record.has_length) return std::min(saturate32(record.length + 1), ~kReferenceCountFlag);
  if (full || counts_references(record.type))
    return kReferenceCountFlag |
           std::min(saturate32(record.reference_count + 1), ~kReferenceCountFlag);
  return 0;
}

// The length column value an identity-only load holds for an object whose
// full load holds `full`: the reference count only for the types
// counts_references names (length_column_value's rule, read backwards).
inline std::uint32_t identity_length(ObjectType type, std::uint32_t full) {
  return (full & kReferenceCountFlag) && !counts_references(type) ? 0 : full;
}

}  // namespace heapleak
