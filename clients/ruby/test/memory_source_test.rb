# frozen_string_literal: true

require_relative "test_helper"

class MemorySourceTest < Minitest::Test
  include CaptureTestHelper

  def write(dir, name, text)
    FileUtils.mkdir_p(File.dirname(File.join(dir, name)))
    File.write(File.join(dir, name), text)
  end

  def fake_proc(dir, cgroup:, available_kb: 8_000_000, rss_kb: 50_000)
    write(dir, "proc/self/cgroup", cgroup)
    write(dir, "proc/meminfo", "MemTotal: 16000000 kB\nMemAvailable: #{available_kb} kB\n")
    write(dir, "proc/self/status", "Name: ruby\nVmRSS:\t#{rss_kb} kB\n")
  end

  def test_cgroup_v2_limit_is_read_from_this_process_cgroup
    dir = private_dir
    fake_proc(dir, cgroup: "0::/kubepods/pod1\n")
    write(dir, "cg/kubepods/pod1/memory.max", "1073741824\n")
    write(dir, "cg/kubepods/pod1/memory.current", "805306368\n")
    source = Heapleak::Capture::MemorySource.new(proc_root: "#{dir}/proc", cgroup_root: "#{dir}/cg")
    reading = source.read
    assert_equal 1 << 30, reading.limit
    assert_equal 256 << 20, reading.room
    assert_match(/cgroup v2/, reading.source)
    assert_equal 50_000 * 1024, source.rss
  end

  def test_cgroup_v2_without_a_limit_falls_back_to_mem_available
    dir = private_dir
    fake_proc(dir, cgroup: "0::/user.slice\n", available_kb: 2_000_000)
    write(dir, "cg/user.slice/memory.max", "max\n")
    write(dir, "cg/user.slice/memory.current", "5000\n")
    reading = Heapleak::Capture::MemorySource.new(proc_root: "#{dir}/proc", cgroup_root: "#{dir}/cg").read
    assert_equal "MemAvailable", reading.source
    assert_equal 2_000_000 * 1024, reading.room
  end

  def test_cgroup_v1_limit_and_unlimited
    dir = private_dir
    fake_proc(dir, cgroup: "4:memory:/docker/abc\n3:cpu:/docker/abc\n")
    write(dir, "cg/memory/docker/abc/memory.limit_in_bytes", "536870912\n")
    write(dir, "cg/memory/docker/abc/memory.usage_in_bytes", "432013312\n")
    reading = Heapleak::Capture::MemorySource.new(proc_root: "#{dir}/proc", cgroup_root: "#{dir}/cg").read
    assert_match(/cgroup v1/, reading.source)
    assert_equal 100 << 20, reading.room

    write(dir, "cg/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n")
    reading = Heapleak::Capture::MemorySource.new(proc_root: "#{dir}/proc", cgroup_root: "#{dir}/cg").read
    assert_equal "MemAvailable", reading.source
  end

  def test_the_smaller_of_cgroup_room_and_mem_available_counts
    dir = private_dir
    fake_proc(dir, cgroup: "0::/big\n", available_kb: 100_000)
    write(dir, "cg/big/memory.max", "#{8 << 30}\n")
    write(dir, "cg/big/memory.current", "0\n")
    reading = Heapleak::Capture::MemorySource.new(proc_root: "#{dir}/proc", cgroup_root: "#{dir}/cg").read
    assert_equal "MemAvailable", reading.source
    assert_equal 100_000 * 1024, reading.room
  end

  def test_an_explicit_cgroup_folder_is_read_instead
    dir = private_dir
    write(dir, "limits/memory.max", "#{300 << 20}\n")
    write(dir, "limits/memory.current", "#{280 << 20}\n")
    reading = Heapleak::Capture::MemorySource.new(cgroup_dir: "#{dir}/limits").read
    assert_equal 20 << 20, reading.room
  end
end
