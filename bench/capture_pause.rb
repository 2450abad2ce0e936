# frozen_string_literal: true

# bench/capture_pause.rb [MB...]: what a capture costs the process, per heap
# size: the VM pause of a fork-mode dump (the fork) against an inline one (the
# whole dump_all), the dump's wall time and size, and the slowdown of an
# allocating loop while allocation tracing is on (as a series with --trace
# runs between its first and last dump). The floor: an inline dump_all into
# a plain file with nothing after it.
#   ruby bench/capture_pause.rb 100 400
$LOAD_PATH.unshift File.expand_path("../clients/ruby/lib", __dir__)
require "heapleak/capture"
require "tmpdir"

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

# Hashes of short strings: the shape of a Rails heap, ~100 B per slot.
def grow_heap_to(mb, keep)
  while GC.stat[:heap_live_slots] * 40 + keep.sum { |h| h.size * 60 } < mb << 20
    keep << Array.new(1000) { |i| { id: i, name: "user #{i} #{rand}", tags: %w[a b] } }
  end
end

def allocations_per_second(seconds)
  count = 0
  t0 = now
  while now - t0 < seconds
    1000.times { |i| "row #{i}".upcase }
    count += 2000
  end
  count / seconds
end

sizes = ARGV.empty? ? [100, 400] : ARGV.map(&:to_i)
keep = []
puts format("%-8s %10s %12s %12s %12s %12s %12s %10s", "heap MB", "rss MB", "fork pause", "fork dump",
            "inline pause", "floor pause", "dump MB", "gz MB")
Dir.mktmpdir do |dir|
  sizes.each do |mb|
    grow_heap_to(mb, keep)
    GC.start
    rss = Heapleak::Capture::MemorySource.new.rss / 1048576.0
    fork = Heapleak::Capture::DumpWriter.new(out_dir: dir).write("fork#{mb}", :fork)
    inline = Heapleak::Capture::DumpWriter.new(out_dir: dir).write("inline#{mb}", :inline)
    t0 = now
    File.open(File.join(dir, "floor.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
    floor = now - t0
    File.unlink(File.join(dir, "floor.json"))
    puts format("%-8d %10.0f %10.3f s %10.3f s %10.3f s %10.3f s %12.0f %10.0f", mb, rss, fork.pause_seconds,
                fork.dump_seconds, inline.pause_seconds, floor, fork.bytes_uncompressed / 1048576.0,
                fork.bytes / 1048576.0)
    Dir.glob(File.join(dir, "*.json.gz")).each { |f| File.unlink(f) }
  end
end
off = allocations_per_second(2)
ObjectSpace.trace_object_allocations_start
on = allocations_per_second(2)
ObjectSpace.trace_object_allocations_stop
puts format("allocations/s: tracing off %.2f M, on %.2f M (%.1fx slower while a traced series runs)",
            off / 1e6, on / 1e6, off / on)
