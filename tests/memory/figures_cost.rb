# frozen_string_literal: true

# What the manifest's memory figures cost the process per dump: the wall
# time of ProcessMemory.read (median of 21 reads) on a heap of about N
# million live objects, each part apart, and with ObjectSpace.memsize_of_all.
# usage: ruby tests/memory/figures_cost.rb [MILLIONS=1]   (not a test: prints)
$LOAD_PATH.unshift(File.expand_path("../../clients/ruby/lib", __dir__))
require "heapleak/capture/process_memory"

M = Heapleak::Capture::ProcessMemory
millions = Float(ARGV.fetch(0, "1"))
keep = Array.new((millions * 1_000_000).to_i) { |i| "object #{i}" }
GC.start

def median(n = 21)
  times = n.times.map do
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
  end
  (times.sort[n / 2] * 1000).round(3)
end

first = M.read["seconds"] * 1000 # loads Fiddle, looks the allocator up
parts = {
  "rss (smaps_rollup)" => median { M.rss("/proc/self") },
  "ruby_heap (GC.stat)" => median { M.ruby_heap },
  "malloc (#{Heapleak::Capture::AllocatorStats.read['allocator']})" => median { Heapleak::Capture::AllocatorStats.read },
  "all, memsize_of_all off" => median { M.read },
  "all, memsize_of_all on" => median(5) { M.read(memsize_of_all: true) }
}
live = GC.stat[:heap_live_slots]
rss = M.read["rss"]["rss"]
puts format("live slots %d, RSS %.1f MiB, first read %.1f ms (loads Fiddle)", live, rss / 1048576.0, first)
parts.each { |name, ms| puts format("  %-28s %8.3f ms", name, ms) }
keep.size
