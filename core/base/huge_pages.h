// Whether fresh column memory asks the kernel for huge pages (MADV_HUGEPAGE).
// A huge page is one fault where 4 KiB pages take 512, and on a VM one
// nested page walk instead of 512: explain on class_cache large ran 20-34%
// faster with them (bench/README.md, round 4). But under THP's usual
// defrag=madvise, a huge-page fault that finds no free 2 MiB block stalls in
// direct compaction (on another VM, explain ran twice as slow once the page
// cache had filled memory: round 3).
// So they are asked for only while the kernel has free 2 MiB blocks for a
// mapping several times over: then no fault needs compaction; and while the
// process's memory cgroup has as much room, as each column's last huge page
// is charged whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace heapleak {

// For a fresh mapping of `bytes`: huge pages or not. HEAPLEAK_HUGEPAGES=1
// always asks, =0 never; otherwise /proc/buddyinfo decides (read each time:
// free memory changes as dumps fill the page cache).
bool huge_pages_for(std::size_t bytes);

// Free memory in blocks of 2 MiB or more, from /proc/buddyinfo's text
// (every node and zone), for pages of `page_bytes`.
std::uint64_t free_huge_block_bytes(const std::string& buddyinfo, std::size_t page_bytes);

// What huge_pages_for needs free in such blocks for a mapping of `bytes`.
std::uint64_t huge_block_bytes_wanted(std::size_t bytes);

// huge_pages_for's rule: the machine's free 2 MiB blocks and the process's
// headroom (core/base/memory_headroom.h) each cover huge_block_bytes_wanted.
bool huge_pages_fit(std::uint64_t free_blocks, std::uint64_t headroom, std::size_t bytes);

}  // namespace heapleak
