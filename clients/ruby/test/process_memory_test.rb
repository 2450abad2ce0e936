# frozen_string_literal: true

require_relative "test_helper"
require "minitest/mock"
require "heapleak/capture/process_memory"

# The manifest's memory figures: read from this process, in bytes, each one
# left out (never zero) when it cannot be read, and never a failed capture.
class ProcessMemoryTest < Minitest::Test
  include CaptureTestHelper
  Capture = Heapleak::Capture
  JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"

  def test_the_figures_of_this_process_in_bytes
    memory = Capture::ProcessMemory.read
    assert_equal Process.pid, memory["pid"]
    rss = memory["rss"]
    assert_equal "smaps_rollup", rss["source"]
    assert_operator rss["rss"], :>, 1 << 20
    assert_equal rss["rss"] - rss["anonymous"], rss["file"]
    heap = memory["ruby_heap"]
    assert_equal GC::INTERNAL_CONSTANTS[:RVALUE_SIZE], heap["slot_size"] if RUBY_VERSION < "3.2"
    assert_operator heap["heap_live_slots"], :>, 1000
    assert_equal heap["heap_allocated_pages"] * heap["page_size"], heap["page_bytes"]
    assert_equal "mmap", heap["pages_from"], "4 KiB system pages: Ruby maps its heap pages"
    malloc = memory["malloc"]
    assert_equal "glibc", malloc["allocator"]
    assert_equal malloc["arena"], malloc["in_use"] - malloc["mmapped"] + malloc["free_held"], "arena = uordblks + fordblks"
    assert_nil memory["memsize_of_all"], "memsize_of_all only when asked"
    assert_operator Capture::ProcessMemory.read(memsize_of_all: true)["memsize_of_all"]["bytes"], :>, 1 << 20
    assert_operator memory["seconds"], :<, 1.0
  end

  # 64 MiB of String buffers (malloc'd, not slots) show in malloc's in_use,
  # and go to free_held or back to the system once freed.
  def test_malloc_in_use_follows_what_the_process_holds
    # Earlier tests' garbage freed first: a GC while the buffers are made
    # would free it and take its bytes off the growth (57 MiB once, not 64).
    GC.start
    before = Capture::ProcessMemory.read["malloc"]
    held = Array.new(16 * 1024) { "x" * 4000 }
    during = Capture::ProcessMemory.read["malloc"]
    assert_operator during["in_use"] - before["in_use"], :>, 60 << 20
    held.clear
    GC.start
    after = Capture::ProcessMemory.read["malloc"]
    assert_operator during["in_use"] - after["in_use"], :>, 60 << 20
  end

  # Size pools (3.2+): a pool's free slots as GC.stat_heap gives them (4.0),
  # else its slots less its live objects (3.3, 3.4), else unknown (3.2).
  def test_free_slots_of_a_size_pool
    free = ->(pool) { Capture::ProcessMemory.pool_free_slots(pool) }
    assert_equal 1572, free[{ slot_size: 40, heap_free_slots: 1572, heap_eden_slots: 8190 }]
    assert_equal 13_104 + 409 - (37_779 - 25_869),
                 free[{ slot_size: 40, heap_eden_slots: 13_104, heap_tomb_slots: 409,
                        total_allocated_objects: 37_779, total_freed_objects: 25_869 }]
    assert_equal 100, free[{ slot_size: 80, heap_eden_slots: 100, total_allocated_objects: 5, total_freed_objects: 5 }]
    assert_nil free[{ slot_size: 40, heap_eden_slots: 29_482, heap_tomb_slots: 0 }]
  end

  def test_kilobytes_of_a_fake_proc_become_bytes_and_status_is_the_fallback
    dir = private_dir
    File.write(File.join(dir, "smaps_rollup"), "Rss:  2048 kB\nPss:  1024 kB\nAnonymous:  1536 kB\nSwap:  0 kB\n")
    rss = Capture::ProcessMemory.read(proc_self: dir)["rss"]
    assert_equal({ "source" => "smaps_rollup", "rss" => 2 << 20, "pss" => 1 << 20, "anonymous" => 1536 << 10,
                   "swap" => 0, "file" => 512 << 10 }, rss)
    File.unlink(File.join(dir, "smaps_rollup"))
    File.write(File.join(dir, "status"), "Name: ruby\nVmRSS:\t  300 kB\nRssAnon:\t 200 kB\n")
    assert_equal({ "source" => "status", "rss" => 300 << 10, "anonymous" => 200 << 10, "file" => 100 << 10 },
                 Capture::ProcessMemory.read(proc_self: dir)["rss"])
    File.unlink(File.join(dir, "status"))
    memory = Capture::ProcessMemory.read(proc_self: dir)
    refute memory.key?("rss"), "no figure rather than zero"
    assert memory.key?("ruby_heap")
  end

  def test_a_figure_that_fails_is_left_out_and_the_capture_goes_on
    dir = private_dir
    Capture.enable!(socket_dir: File.join(dir, "sockets"), min_gap: 0)
    answer = Capture::AllocatorStats.stub(:read, -> { raise Fiddle::DLError, "boom" }) do
      Capture::ControlClient.new(Capture.server.path).request("method" => "dump", "name" => "one",
                                                              "out" => File.join(dir, "out"))
    end
    assert answer["ok"], answer["error"]
    memory = JSON.parse(File.read(File.join(dir, "out", "one.manifest.json")))["memory"]
    refute memory.key?("malloc")
    assert memory.key?("rss")
  end

  # Fork mode: the figures are the parent's (its pid), read after the GC that
  # precedes the dump and before the child was forked.
  def test_the_manifest_records_the_parents_memory_at_the_dump
    dir = private_dir
    Capture.enable!(socket_dir: File.join(dir, "sockets"), min_gap: 0)
    answer = Capture::ControlClient.new(Capture.server.path).request("method" => "dump", "name" => "one",
                                                                     "out" => File.join(dir, "out"))
    assert answer["ok"], answer["error"]
    manifest = JSON.parse(File.read(File.join(dir, "out", "one.manifest.json")))
    assert_equal 2, manifest["version"]
    assert_equal "fork", manifest["capture"]["mode"]
    memory = manifest["memory"]
    assert_equal Process.pid, memory["pid"]
    assert_operator memory["taken_at"], :>=, manifest["capture"]["started_at"]
    assert_operator memory["taken_at"], :<=, manifest["capture"]["finished_at"]
    %w[rss ruby_heap malloc].each { |block| assert memory.key?(block), block }
  end

  def test_jemalloc_is_detected_and_read_through_mallctl
    skip "no #{JEMALLOC}" unless File.exist?(JEMALLOC)
    lib = File.expand_path("../lib", __dir__)
    out = IO.popen({ "LD_PRELOAD" => JEMALLOC },
                   [RbConfig.ruby, "-I#{lib}", "-rjson", "-rheapleak/capture/process_memory", "-e",
                    "keep = Array.new(10_000) { 'x' * 2000 }; puts JSON.generate(Heapleak::Capture::ProcessMemory.read['malloc'])"],
                   &:read)
    malloc = JSON.parse(out)
    assert_equal "jemalloc", malloc["allocator"]
    assert_operator malloc["allocated"], :>, 20 << 20
    assert_operator malloc["resident"], :>=, malloc["active"]
    assert_operator malloc["active"], :>=, malloc["allocated"]
    assert_equal malloc["resident"] - malloc["allocated"], malloc["free_held"]
  end
end
