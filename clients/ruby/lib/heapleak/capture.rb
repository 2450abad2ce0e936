# frozen_string_literal: true

require "securerandom"
require "time"
require_relative "capture/version"
require_relative "capture/memory_source"
require_relative "capture/governor"
require_relative "capture/dump_writer"
require_relative "capture/manifest"
require_relative "capture/config"
require_relative "capture/control_server"
require_relative "capture/signal_trigger"

# Heapleak::Capture takes heap dumps of this process on request, safely, for
# heapleak to diff. It is off until enabled (HEAPLEAK_CAPTURE_DIR, or one call
# to enable!); then a control socket serves `dump`, `series` and `status`.
# One capture runs at a time, captures are rate-limited, and each dump is
# taken in the mode the governor picks from the memory left.
module Heapleak
  module Capture
    class Busy < CaptureError; end

    @loaded_at = Time.now
    @lock = Mutex.new
    @ticks = 0
    @forking_for_dump = false

    class << self
      attr_reader :config, :server, :loaded_at, :tracing_since, :last_capture_end

      # Turns capture on: options as Config.new takes them (socket_dir is
      # required), defaults from the environment.
      def enable!(**options)
        disable! if enabled?
        @config = Config.from_env.merge(**options)
        @config.validate!
        @governor = nil
        start_triggers
        self
      end

      # Turns capture on when HEAPLEAK_CAPTURE_DIR is set; else does nothing.
      def enable_from_env!
        enable! if ENV["HEAPLEAK_CAPTURE_DIR"].to_s != "" && !enabled?
        self
      end

      def enabled? = !@config.nil?

      def disable!
        @server&.close
        @server = nil
        @signal_trigger&.close
        @signal_trigger = nil
        @config = nil
      end

      # In a forked process (a Puma worker): the inherited socket belongs to
      # the parent; open this process's own. Idempotent; called by the
      # Process._fork hook and by the Puma integration's on_worker_boot.
      def after_fork
        return unless enabled?
        return if @server && @server.pid == Process.pid

        @server&.abandon
        @server = nil
        @signal_trigger&.abandon
        @signal_trigger = nil
        @lock = Mutex.new
        @ticks = 0
        @last_capture_end = nil
        start_triggers
      end

      # Counts a unit of work (a request, a job): series can wait for N.
      def tick(count = 1)
        @ticks += count
      end

      attr_reader :ticks

      def status
        {
          "pid" => Process.pid, "enabled" => enabled?, "busy" => @lock.locked?,
          "socket" => @server&.path, "signal" => @signal_trigger&.signal_name,
          "out_dir" => @config&.out_dir, "ticks" => @ticks,
          "allocation_tracing_since" => @tracing_since && Time.at(@tracing_since).utc.iso8601(3),
          "next_capture_in" => next_capture_in.round(3),
          "governor" => governor.decide.to_h, "gem_version" => VERSION,
          "ruby" => RUBY_VERSION, "compact_count" => GC.stat.fetch(:compact_count, 0)
        }
      end

      # One dump named NAME into OUT (default: the configured out_dir).
      def dump(name:, out: nil, mode: nil, &progress)
        exclusively { [take(name, out: out, mode: mode, series: nil, &progress)] }.first
      end

      # N >= 2 dumps named NAMES, the next one once INTERVAL seconds passed
      # and EVERY units of work were counted since the last (both optional),
      # with allocation tracing on from just after the first dump to the last
      # when TRACE. Reports a compaction between dumps.
      def series(names: %w[A B C], interval: nil, every: nil, trace: false, out: nil, mode: nil,
                 timeout: 3600, &progress)
        validate_series(names, interval, every)
        exclusively do
          run_series(names, interval: interval, every: every, trace: trace, out: out, mode: mode,
                            timeout: timeout, &progress)
        end
      end

      # What a series' GC counters say about comparing its dumps: a compaction
      # (GC.compact, auto_compact, Process.warmup) moves objects, so an
      # address diff across it is meaningless.
      def series_warnings(dumps)
        dumps.each_cons(2).filter_map do |before, after|
          next if before["compact_count"] == after["compact_count"]

          "the heap was compacted between #{before['name']} and #{after['name']} (GC compact_count " \
            "#{before['compact_count']} -> #{after['compact_count']}): objects moved, so these dumps " \
            "cannot be diffed by address; take the series again without GC.compact/Process.warmup in between"
        end
      end

      def governor
        @governor ||= Governor.new(
          memory: MemorySource.new(cgroup_dir: @config&.cgroup_dir),
          allow_inline: @config&.allow_inline || false,
          dirty_fraction: @config&.dirty_fraction || 0.5
        )
      end

      # The pid of a forked child that is dumping now (tests kill it).
      def dumping_child_pid = @writer&.child_pid

      # True in the child forked to dump: the Process._fork hook leaves it be.
      def forking_for_dump
        @forking_for_dump = true
        yield
      ensure
        @forking_for_dump = false
      end

      def forking_for_dump? = @forking_for_dump

      def human_bytes(bytes)
        return "#{bytes} B" if bytes < 1024

        units = %w[KiB MiB GiB TiB]
        value = bytes.to_f
        unit = nil
        units.each do |u|
          value /= 1024
          unit = u
          break if value < 1024
        end
        format("%.1f %s", value, unit)
      end

      private

      def start_triggers
        @server = ControlServer.open(@config)
        @signal_trigger = SignalTrigger.install(@config.signal, fallback: @server.nil?) do
          exclusively { [take(SignalTrigger.next_name, out: nil, mode: nil, series: nil)] }
        rescue CaptureError => e
          warn "heapleak-capture: #{e.message}"
        end
      rescue CaptureError => e
        warn "heapleak-capture: #{e.message}"
        @signal_trigger = SignalTrigger.install(@config.signal, fallback: true) do
          exclusively { [take(SignalTrigger.next_name, out: nil, mode: nil, series: nil)] }
        rescue CaptureError => err
          warn "heapleak-capture: #{err.message}"
        end
      end

      def next_capture_in
        return 0.0 unless @last_capture_end && @config

        [@config.min_gap - (now - @last_capture_end), 0.0].max
      end

      def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

      def exclusively
        raise CaptureError, "capture is not enabled in process #{Process.pid}" unless enabled?
        raise Busy, "busy: another capture is running in process #{Process.pid}" unless @lock.try_lock

        begin
          wait = next_capture_in
          if wait.positive?
            raise Busy, "rate limit: the next capture is allowed in #{wait.round(1)} s " \
                        "(min_gap #{@config.min_gap} s, HEAPLEAK_CAPTURE_MIN_GAP)"
          end
          yield
        ensure
          @last_capture_end = now
          @lock.unlock
        end
      end

      def validate_series(names, interval, every)
        raise CaptureError, "a series needs at least 2 names, got #{names.inspect}" unless names.is_a?(Array) && names.size >= 2
        raise CaptureError, "series names repeat: #{names.inspect}" unless names.uniq.size == names.size
        raise CaptureError, "interval must be >= 0" if interval && interval.negative?
        raise CaptureError, "every must be >= 1" if every && every < 1
      end

      def run_series(names, interval:, every:, trace:, out:, mode:, timeout:, &progress)
        info = { "id" => SecureRandom.hex(8), "names" => names, "interval" => interval, "every" => every,
                 "trace" => trace }
        results = []
        started_tracing = false
        names.each_with_index do |name, index|
          wait_for_next(name, interval, every, timeout, &progress) if index.positive?
          results << take(name, out: out, mode: mode, series: info.merge("index" => index), &progress)
          if trace && index.zero? && @tracing_since.nil?
            ObjectSpace.trace_object_allocations_start
            # A Float (an immediate), not a Time: no object of ours between dumps.
            @tracing_since = Time.now.to_f
            started_tracing = true
          end
        end
        results
      ensure
        if started_tracing
          ObjectSpace.trace_object_allocations_stop
          @tracing_since = nil
        end
      end

      def wait_for_next(name, interval, every, timeout)
        t0 = now
        ticks0 = @ticks
        progress_at = t0
        loop do
          elapsed = now - t0
          counted = @ticks - ticks0
          break if (interval.nil? || elapsed >= interval) && (every.nil? || counted >= every)
          if elapsed > timeout
            raise CaptureError, "gave up waiting for #{name}: #{counted} of #{every} units of work " \
                                "in #{elapsed.round} s (timeout #{timeout} s)"
          end
          if block_given? && now - progress_at >= 1
            progress_at = now
            yield({ "event" => "waiting", "for" => name, "seconds" => elapsed.round(1), "counted" => counted })
          end
          sleep 0.05
        end
      end

      def take(name, out:, mode:, series:)
        decision = governor.decide(requested: mode&.to_sym)
        raise CaptureError, decision.reason if decision.refused?

        yield({ "event" => "dumping", "name" => name, "mode" => decision.mode.to_s, "reason" => decision.reason }) if block_given?
        gc = Manifest.gc_facts
        tracing = { "on" => !@tracing_since.nil?, "since" => @tracing_since && Time.at(@tracing_since).utc.iso8601(3) }
        @writer = DumpWriter.new(out_dir: out || @config.out_dir, gc: @config.gc, redact_key: @config.redact_key)
        result = @writer.write(name, decision.mode)
        manifest = Manifest.build(result, decision: decision, gc: gc, tracing: tracing, series: series)
        manifest_path = Manifest.path_for(result.path)
        Manifest.write(manifest_path, manifest)
        reply = {
          "event" => "dumped", "name" => name, "path" => result.path, "manifest" => manifest_path,
          "bytes" => result.bytes, "bytes_uncompressed" => result.bytes_uncompressed,
          "mode" => result.mode.to_s, "reason" => decision.reason,
          "vm_pause_seconds" => result.pause_seconds.round(6), "dump_seconds" => result.dump_seconds.round(6),
          "redacted" => result.redacted, "gc_count" => gc["count"], "compact_count" => gc["compact_count"]
        }
        yield reply if block_given?
        reply
      ensure
        @writer = nil
      end
    end
  end
end

# Process._fork (Ruby >= 3.1) runs in every fork: a forked worker opens its
# own control socket. The child forked to dump is left alone.
if Process.respond_to?(:_fork)
  module Heapleak
    module Capture
      module ForkHook
        def _fork
          pid = super
          Heapleak::Capture.after_fork if pid.zero? && !Heapleak::Capture.forking_for_dump?
          pid
        end
      end
    end
  end
  Process.singleton_class.prepend(Heapleak::Capture::ForkHook)
end
