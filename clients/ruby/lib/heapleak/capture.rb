# frozen_string_literal: true

require "securerandom"
require "time"
require "json"
require "objspace"
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

    THREAD_PREFIX = "heapleak-capture"

    @loaded_at = Time.now
    @lock = Mutex.new
    @ticks = 0
    @forking_for_dump = false

    class << self
      attr_reader :config, :server, :loaded_at, :tracing_since, :last_capture_end

      # What this process is to its server, shown by `status` and `list`:
      # "puma master" (it forks the workers and serves no request), "puma
      # worker", or nil. Set by the integrations.
      attr_accessor :role

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
        @last_capture_end = nil
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
        @role = nil # a forked child is not its parent (the Puma master)
        # The parent's series (its tracing, its auto_compact) is not ours.
        @tracing_since = nil
        @tracing_since_gc = nil
        start_triggers
      end

      # Counts a unit of work (a request, a job): series can wait for N.
      def tick(count = 1)
        @ticks += count
      end

      attr_reader :ticks

      def status
        {
          "pid" => Process.pid, "role" => @role, "enabled" => enabled?, "busy" => @lock.locked?,
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

      # The addresses (as ObjectSpace.dump writes them) of every live thread
      # the gem started: the manifest lists them so that heapleak files what
      # they hold as the gem's own, not the application's.
      def capture_threads
        Thread.list.select { |t| t.name.to_s.start_with?(THREAD_PREFIX) }
      end

      def capture_objects
        { "threads" => capture_threads.map { |t| JSON.parse(ObjectSpace.dump(t))["address"] } }
      end

      # Every thread the gem starts is named "heapleak-capture WHAT".
      def name_thread(thread, what)
        thread.name = "#{THREAD_PREFIX} #{what}"
        thread
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
        install_signal(fallback: false)
      rescue CaptureError => e
        warn "heapleak-capture: #{e.message}"
        # A folder refused for the socket is never then written into: the
        # signal fallback dumps only to an out_dir outside it.
        if inside?(@config.out_dir, @config.socket_dir)
          warn "heapleak-capture: no signal trigger either: the dumps would go to #{@config.out_dir}, " \
               "inside the refused folder; set HEAPLEAK_CAPTURE_OUT (out_dir:) to a private folder elsewhere"
          return
        end
        install_signal(fallback: true)
      end

      def install_signal(fallback:)
        @signal_trigger = SignalTrigger.install(@config.signal, fallback: fallback) do
          exclusively { [take(SignalTrigger.next_name, out: nil, mode: nil, series: nil)] }
        rescue CaptureError => e
          warn "heapleak-capture: #{e.message}"
        end
      end

      def inside?(path, dir)
        path == dir || path.start_with?(dir.end_with?("/") ? dir : "#{dir}/")
      end

      def next_capture_in
        return 0.0 unless @last_capture_end && @config

        [@config.min_gap - (now - @last_capture_end), 0.0].max
      end

      def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

      # One capture at a time, min_gap apart. Only a capture that ran (take
      # got past the governor) starts the gap: a request refused here or by
      # the governor leaves it as it was, so a retry at the stated time works.
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
          @lock.unlock
        end
      end

      def validate_series(names, interval, every)
        raise CaptureError, "a series needs at least 2 names, got #{names.inspect}" unless names.is_a?(Array) && names.size >= 2
        raise CaptureError, "series names repeat: #{names.inspect}" unless names.uniq.size == names.size
        raise CaptureError, "interval must be >= 0" if interval && interval.negative?
        raise CaptureError, "every must be >= 1" if every && every < 1
      end

      # The series keeps nothing per dump between its dumps: each dump's
      # answer goes to the client as it is made and is dropped, and the final
      # list is read back from the manifests once the last dump is written.
      # (Kept in an Array, it grew 0 -> 1 -> 2 between A, B and C, and
      # heapleak reported the gem's own thread as a leak.) GC.auto_compact is
      # off for the length of the series: a compaction between two dumps
      # makes them impossible to diff by address.
      def run_series(names, interval:, every:, trace:, out:, mode:, timeout:, &progress)
        if every && @role == "puma master"
          raise CaptureError, "refused: process #{Process.pid} is the Puma master: it serves no requests, " \
                              "so --every would wait for nothing; capture a worker (heapleak-capture list)"
        end

        auto_compact = suspend_auto_compact
        info = { "id" => SecureRandom.hex(8), "names" => names, "interval" => interval, "every" => every,
                 "trace" => trace, "auto_compact_suspended" => auto_compact == true }
        started_tracing = false
        prepare_tracer if trace && @tracing_since.nil?
        # Made before A: nothing new on this thread's stack from dump to dump.
        out ||= @config.out_dir
        names.each_with_index do |name, index|
          wait_for_next(name, interval, every, timeout, &progress) if index.positive?
          take(name, out: out, mode: mode, series: info.merge("index" => index), &progress)
          if trace && index.zero? && @tracing_since.nil?
            # Immediates (a Float, an Integer), not a Time: no object of ours
            # between dumps.
            @tracing_since_gc = GC.count
            @tracing_since = Time.now.to_f
            ObjectSpace.trace_object_allocations_start
            started_tracing = true
          end
        end
        names.map { |name| reply_from_manifest(File.join(out, "#{name}.json.gz")) }
      ensure
        if started_tracing
          ObjectSpace.trace_object_allocations_stop
          # The sites recorded for this series would otherwise stay on every
          # object still alive, and a later untraced dump (or the next
          # series) would show them as if traced then.
          ObjectSpace.trace_object_allocations_clear
          @tracing_since = nil
          @tracing_since_gc = nil
        end
        restore_auto_compact(auto_compact)
      end

      # The allocation tracer makes its objects (a DATA table held by the VM
      # and two TracePoints) the first time tracing starts, and keeps them.
      # Started after A, they were new between A and B and alive in C: a
      # "held by ROOT vm" row in every first traced series of a process.
      # Made before A (started and stopped at once), they are not new.
      def prepare_tracer
        ObjectSpace.trace_object_allocations_start
        ObjectSpace.trace_object_allocations_stop
      end

      # Turns GC.auto_compact off; returns what it was (nil: not supported).
      def suspend_auto_compact
        return nil unless GC.respond_to?(:auto_compact=)

        was = GC.auto_compact
        GC.auto_compact = false if was
        was
      rescue NotImplementedError
        nil
      end

      def restore_auto_compact(was)
        GC.auto_compact = was if was
      rescue NotImplementedError
        nil
      end

      # The answer for one dump of a series, from its manifest on disk.
      def reply_from_manifest(path)
        manifest_path = Manifest.path_for(path)
        manifest = JSON.parse(File.read(manifest_path))
        capture = manifest["capture"]
        {
          "event" => "dumped", "name" => manifest["name"], "path" => path, "manifest" => manifest_path,
          "bytes" => capture["bytes"], "bytes_uncompressed" => capture["bytes_uncompressed"],
          "mode" => capture["mode"], "reason" => capture["reason"],
          "vm_pause_seconds" => capture["vm_pause_seconds"], "dump_seconds" => capture["dump_seconds"],
          "redacted" => capture["redacted"], "gc_count" => manifest["gc"]["count"],
          "compact_count" => manifest["gc"]["compact_count"]
        }
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

      def take(name, out:, mode:, series:, &progress)
        decision = governor.decide(requested: mode&.to_sym)
        raise CaptureError, decision.reason if decision.refused?

        yield({ "event" => "dumping", "name" => name, "mode" => decision.mode.to_s, "reason" => decision.reason }) if block_given?
        gc = Manifest.gc_facts
        # since_gc_count: GC.count when tracing began; heapleak distrusts a
        # site on an object of an older generation.
        tracing = { "on" => !@tracing_since.nil?, "since" => @tracing_since && Time.at(@tracing_since).utc.iso8601(3),
                    "since_gc_count" => @tracing_since_gc }
        own = capture_objects
        started = now
        heartbeat = progress && -> { progress.call({ "event" => "heartbeat", "name" => name, "seconds" => (now - started).round(1) }) }
        @writer = DumpWriter.new(out_dir: out || @config.out_dir, gc: @config.gc, redact_key: @config.redact_key,
                                 nice: @config.nice || 10, heartbeat: heartbeat,
                                 memory: -> { ProcessMemory.read(memsize_of_all: @config.memsize_of_all == true) })
        # The gap runs from the end of a capture that ran, even one that
        # failed midway; a request refused before this point leaves it be.
        begin
          result = @writer.write(name, decision.mode)
        ensure
          @last_capture_end = now
        end
        manifest = Manifest.build(result, decision: decision, gc: gc, tracing: tracing, series: series,
                                          capture_objects: own)
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

# HEAPLEAK_CAPTURE_DIR alone turns capture on in any Ruby program that
# requires the gem (issue 40.6: plain Ruby needed an enable! call the docs
# did not show). A setting it cannot use is said, never raised into the
# application's boot.
begin
  Heapleak::Capture.enable_from_env!
rescue Heapleak::Capture::CaptureError, ArgumentError => e
  warn "heapleak-capture: not enabled: #{e.message}"
end
