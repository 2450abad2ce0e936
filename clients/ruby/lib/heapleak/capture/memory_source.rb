# frozen_string_literal: true

# Reads how much memory this process may still use before the kernel kills it:
# the memory cgroup's limit and usage (v2, else v1), else MemAvailable. The
# governor asks it before every dump, so it reads the files afresh each time.
module Heapleak
  module Capture
    class MemorySource
      Reading = Struct.new(:source, :limit, :used, :room, keyword_init: true)

      # A v1 limit this large means "no limit" (the kernel's PAGE_COUNTER_MAX).
      V1_UNLIMITED = 1 << 62

      # cgroup_dir: a folder holding memory.max + memory.current (v2) or
      # memory.limit_in_bytes + memory.usage_in_bytes (v1), read instead of
      # this process's own cgroup (HEAPLEAK_CAPTURE_CGROUP; tests use it).
      def initialize(cgroup_dir: nil, proc_root: "/proc", cgroup_root: "/sys/fs/cgroup")
        @cgroup_dir = cgroup_dir
        @proc_root = proc_root
        @cgroup_root = cgroup_root
      end

      def read
        available = mem_available
        limited = cgroup_reading
        return limited if limited && (available.nil? || limited.room <= available)
        return Reading.new(source: "MemAvailable", limit: nil, used: nil, room: available) if available
        limited || Reading.new(source: "unknown", limit: nil, used: nil, room: nil)
      end

      # This process's resident set, in bytes (VmRSS), or nil where /proc has none.
      def rss
        status = File.read(File.join(@proc_root, "self", "status"))
        kb = status[/^VmRSS:\s+(\d+)\s+kB/, 1]
        kb && kb.to_i * 1024
      rescue SystemCallError
        nil
      end

      private

      def cgroup_reading
        dirs = @cgroup_dir ? [@cgroup_dir] : own_cgroup_dirs
        dirs.each do |dir|
          reading = v2_reading(dir) || v1_reading(dir)
          return reading if reading
        end
        nil
      end

      def v2_reading(dir)
        max = read_value(File.join(dir, "memory.max"))
        current = read_value(File.join(dir, "memory.current"))
        return nil unless max && current && max != "max"
        limit = Integer(max)
        used = Integer(current)
        Reading.new(source: "cgroup v2 #{dir}", limit: limit, used: used, room: [limit - used, 0].max)
      rescue ArgumentError
        nil
      end

      def v1_reading(dir)
        max = read_value(File.join(dir, "memory.limit_in_bytes"))
        current = read_value(File.join(dir, "memory.usage_in_bytes"))
        return nil unless max && current
        limit = Integer(max)
        used = Integer(current)
        return nil if limit >= V1_UNLIMITED
        Reading.new(source: "cgroup v1 #{dir}", limit: limit, used: used, room: [limit - used, 0].max)
      rescue ArgumentError
        nil
      end

      # The folders of this process's memory cgroup, v2 first ("0::/path"),
      # then v1 ("N:memory:/path" or a controller list holding memory).
      def own_cgroup_dirs
        lines = File.readlines(File.join(@proc_root, "self", "cgroup"), chomp: true)
        dirs = []
        lines.each do |line|
          _id, controllers, path = line.split(":", 3)
          next unless path
          if controllers.empty?
            dirs.unshift(File.join(@cgroup_root, path))
          elsif controllers.split(",").include?("memory")
            dirs << File.join(@cgroup_root, "memory", path)
          end
        end
        dirs
      rescue SystemCallError
        []
      end

      def mem_available
        meminfo = File.read(File.join(@proc_root, "meminfo"))
        kb = meminfo[/^MemAvailable:\s+(\d+)\s+kB/, 1]
        kb && kb.to_i * 1024
      rescue SystemCallError
        nil
      end

      def read_value(path)
        File.read(path).strip
      rescue SystemCallError
        nil
      end
    end
  end
end
