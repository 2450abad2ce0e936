// XXH64 (Yann Collet's xxHash, 64-bit variant), written out here: the
// checksum of cache image sections and of a dump's head and tail. Fast
// (several GB/s on one core) and good at catching flipped or torn bytes; not
// a cryptographic hash, which the cache does not need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace heapleak {

std::uint64_t xxh64(const void* data, std::size_t bytes, std::uint64_t seed = 0);

// The same hash, handing each `chunk` bytes (a multiple of 32) to `visit`
// as [begin, end) offsets once they are hashed, while they are still in the
// CPU's cache: the cache image reader checks the values in the pass that
// hashes them. `visit` returning false stops early (the result is then 0).
std::uint64_t xxh64_visiting(const void* data, std::size_t bytes, std::size_t chunk,
                             const std::function<bool(std::size_t, std::size_t)>& visit,
                             std::uint64_t seed = 0);

}  // namespace heapleak
