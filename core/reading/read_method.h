// How the line pipeline gets a large plain dump's bytes: by mapping the file
// (pages populated on the reader's core, no copy) or by read(2) into
// recycled buffers (one copy, which leaves the bytes in the cache the parser
// reads them from). Which costs less depends on the machine: on one VM
// populating a mapping cost a third of the copy, on another four times it
// (bench/README.md). So it is measured once per process, on the dump itself.
#pragma once

#include <cstdint>

namespace heapleak {

enum class ReadMethod { kMap, kRead };

// The way to read the plain file open as `fd`, whose bytes [begin, end) are
// to be loaded. Ranges under kProbeFrom are mapped, as before the probe (the
// difference is a few milliseconds there); for larger ones the first call
// times both ways on the range's first 1 MiB (best of two each, once the
// pages are in the page cache) and every later call reuses its verdict.
// HEAPLEAK_READ=map|read forces one (benchmarks, tests).
ReadMethod read_method_for(int fd, std::uint64_t begin, std::uint64_t end);

inline constexpr std::uint64_t kProbeFrom = std::uint64_t{64} << 20;

}  // namespace heapleak
