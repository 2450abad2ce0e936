# frozen_string_literal: true

require "json"
require "time"
require "etc"
require "socket"
require_relative "safe_file"
require_relative "process_memory"

# The manifest beside each dump (DIR/NAME.manifest.json for DIR/NAME.json.gz):
# which process wrote it, when, how, and the GC counters that tell whether two
# dumps can be compared (the same process, no compaction in between, in
# order). heapleak reads it to refuse series that are not one series.
# Version 2 adds `memory`: the process's resident set, Ruby heap and malloc
# figures at the dump (ProcessMemory), for heapleak to account for growth.
module Heapleak
  module Capture
    module Manifest
      FORMAT = "heapleak-capture-manifest"
      VERSION_2 = 2

      module_function

      def path_for(dump_path)
        dump_path.sub(/\.json(\.gz)?\z/, "") + ".manifest.json"
      end

      # result: a DumpWriter::Result; decision: the Governor's; gc: the GC
      # counters read just before the dump; extra: series and tracing facts.
      # capture_objects: {"threads" => [addresses]}, the gem's own threads.
      def build(result, decision:, gc:, tracing:, series: nil, capture_objects: nil)
        {
          "format" => FORMAT,
          "version" => VERSION_2,
          "dump" => File.basename(result.path),
          "name" => result.name,
          "series" => series,
          "process" => process_facts,
          "ruby" => {
            "version" => RUBY_VERSION, "patchlevel" => RUBY_PATCHLEVEL, "engine" => RUBY_ENGINE,
            "platform" => RUBY_PLATFORM, "description" => RUBY_DESCRIPTION
          },
          "gc" => gc,
          "allocation_tracing" => tracing,
          "capture" => {
            "mode" => result.mode.to_s, "reason" => decision.reason,
            "vm_pause_seconds" => result.pause_seconds.round(6),
            "dump_seconds" => result.dump_seconds.round(6),
            "gc_seconds" => result.gc_seconds&.round(6),
            "started_at" => result.started_at.utc.iso8601(6),
            "finished_at" => result.finished_at.utc.iso8601(6),
            "bytes" => result.bytes, "bytes_uncompressed" => result.bytes_uncompressed,
            "compression" => "gzip-1", "redacted" => result.redacted, "gem_version" => VERSION
          },
          "capture_objects" => capture_objects
        }.tap { |manifest| manifest["memory"] = result.memory if result.memory }
      end

      # Read just before each dump: GC.count and compact_count tell a
      # compaction (GC.compact, auto_compact, Process.warmup) between dumps.
      def gc_facts
        stat = GC.stat
        {
          "name" => gc_name, "count" => GC.count, "major_count" => stat[:major_gc_count],
          "compact_count" => stat.fetch(:compact_count, 0),
          "heap_live_slots" => stat[:heap_live_slots],
          "auto_compact" => GC.respond_to?(:auto_compact) ? GC.auto_compact : false
        }
      end

      def gc_name
        if GC.respond_to?(:config) && GC.config.is_a?(Hash) && GC.config[:implementation]
          GC.config[:implementation].to_s
        else
          "default"
        end
      end

      def process_facts
        {
          "pid" => Process.pid, "ppid" => Process.ppid, "started_at" => process_start_time,
          "hostname" => Socket.gethostname, "program" => $PROGRAM_NAME
        }
      end

      # The kernel's start time of this process (/proc/self/stat field 22,
      # in clock ticks after boot, plus the boot time): two dumps with the
      # same pid but another start time are two processes.
      def process_start_time
        stat = File.read("/proc/self/stat")
        fields = stat[(stat.rindex(")") + 2)..].split
        ticks = Integer(fields[19])
        boot = File.read("/proc/stat")[/^btime (\d+)/, 1].to_i
        Time.at(boot + ticks.fdiv(Etc.sysconf(Etc::SC_CLK_TCK))).utc.iso8601(2)
      rescue SystemCallError, ArgumentError, TypeError, NoMethodError
        Capture.loaded_at.utc.iso8601(2)
      end

      # Written through SafeFile: an exclusive 0600 temporary, then renamed.
      def write(path, manifest)
        SafeFile.write(path, "#{JSON.pretty_generate(manifest)}\n")
      end
    end
  end
end
