#include "core/base/checksum.h"

#include <cstring>

namespace heapleak {
namespace {

constexpr std::uint64_t kP1 = 11400714785074694791ULL;
constexpr std::uint64_t kP2 = 14029467366897019727ULL;
constexpr std::uint64_t kP3 = 1609587929392839161ULL;
constexpr std::uint64_t kP4 = 9650029242287828579ULL;
constexpr std::uint64_t kP5 = 2870177450012600261ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian hosts only (x86-64, aarch64), as the image format is.
inline std::uint64_t read64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline std::uint32_t read32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline std::uint64_t mix(std::uint64_t acc, std::uint64_t input) {
  acc += input * kP2;
  acc = rotl(acc, 31);
  return acc * kP1;
}

inline std::uint64_t merge(std::uint64_t acc, std::uint64_t value) {
  acc ^= mix(0, value);
  return acc * kP1 + kP4;
}

// kVisit false compiles the plain hash, without the visiting branch.
template <bool kVisit>
std::uint64_t hash(const void* data, std::size_t bytes, std::size_t chunk,
                   const std::function<bool(std::size_t, std::size_t)>& visit, std::uint64_t seed) {
  const auto* const start = static_cast<const unsigned char*>(data);
  const auto* p = start;
  const unsigned char* const end = p + bytes;
  // Bytes [start, visited) were handed to `visit`; a refusal stops the hash
  // (its value then no longer matters: the caller refuses the whole).
  const unsigned char* visited = start;
  std::uint64_t h;
  if (bytes >= 32) {
    std::uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    const unsigned char* const limit = end - 32;
    do {
      v1 = mix(v1, read64(p));
      v2 = mix(v2, read64(p + 8));
      v3 = mix(v3, read64(p + 16));
      v4 = mix(v4, read64(p + 24));
      p += 32;
      if (kVisit && static_cast<std::size_t>(p - visited) >= chunk) {
        if (!visit(static_cast<std::size_t>(visited - start), static_cast<std::size_t>(p - start)))
          return 0;
        visited = p;
      }
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = seed + kP5;
  }
  h += static_cast<std::uint64_t>(bytes);
  for (; end - p >= 8; p += 8) {  // not p + 8 <= end: p may be null (no bytes)
    h ^= mix(0, read64(p));
    h = rotl(h, 27) * kP1 + kP4;
  }
  if (end - p >= 4) {
    h ^= static_cast<std::uint64_t>(read32(p)) * kP1;
    h = rotl(h, 23) * kP2 + kP3;
    p += 4;
  }
  for (; p < end; ++p) {
    h ^= (*p) * kP5;
    h = rotl(h, 11) * kP1;
  }
  if (kVisit && visited != end &&
      !visit(static_cast<std::size_t>(visited - start), static_cast<std::size_t>(end - start)))
    return 0;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

}  // namespace

std::uint64_t xxh64(const void* data, std::size_t bytes, std::uint64_t seed) {
  return hash<false>(data, bytes, 0, {}, seed);
}

std::uint64_t xxh64_visiting(const void* data, std::size_t bytes, std::size_t chunk,
                             const std::function<bool(std::size_t, std::size_t)>& visit,
                             std::uint64_t seed) {
  return hash<true>(data, bytes, chunk, visit, seed);
}

}  // namespace heapleak
