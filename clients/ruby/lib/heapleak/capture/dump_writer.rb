# frozen_string_literal: true

require "json"
require "objspace"
require "rbconfig"
require_relative "safe_file"

# Writes one heap dump safely: gzip (level 1) into a dot-named `.tmp` file of
# mode 0600, fsynced, renamed to NAME.json.gz only once complete, so a full
# disk, a killed child or a crash never leaves a file that looks complete.
#   fork   a forked child dumps into a pipe to a compressor process; the
#          parent is paused only for the fork. The child has one thread, so
#          nothing can allocate while dump_all walks the heap.
#   inline this process dumps into a plain temporary file (a file never
#          blocks on a reader: other threads stay off the heap being walked),
#          then a compressor process packs it while this process serves on.
module Heapleak
  module Capture
    class CaptureError < StandardError; end

    class DumpWriter
      Result = Struct.new(:name, :path, :bytes, :bytes_uncompressed, :mode, :pause_seconds,
                          :dump_seconds, :started_at, :finished_at, :redacted, :gc_seconds, :memory,
                          keyword_init: true)

      NAME = /\A[A-Za-z0-9_][A-Za-z0-9_.-]{0,100}\z/

      HEARTBEAT = 1.0

      # The compressor runs as a process of its own (compressor.rb).
      COMPRESSOR = File.expand_path("compressor.rb", __dir__)

      attr_reader :out_dir

      # before_dump: called in whichever process dumps, just before dump_all
      # (tests use it to hold a child still while they kill it).
      # redact_key: bytes; when given, every string value is redacted as it
      # is written (Redactor).
      # nice: added to the niceness of the forked child and of the
      # compressor (0: as this process). They compete with the worker's
      # request threads for the CPU; at nice 10 the scheduler gives them a
      # small share while requests are runnable (docs/capture.md has the
      # figures). Nice is CPU only: the disk writes keep their priority
      # (ioprio_set has no stdlib binding).
      # heartbeat: called about every HEARTBEAT seconds while this process
      # waits for the dumping child or the compressor, so that a client can
      # hold a deadline on silence (an inline dump_all itself stops the VM:
      # no heartbeat can be sent during it).
      # memory: called after the GC and before the dump, in this process
      # (before a fork: the figures are the parent's, at the heap the child
      # dumps); its answer is the result's `memory`.
      def initialize(out_dir:, gc: true, redact_key: nil, before_dump: nil, nice: 10, heartbeat: nil, memory: nil)
        @memory = memory
        @heartbeat = heartbeat
        @nice = nice.to_i
        @out_dir = out_dir
        @gc = gc
        @redact_key = redact_key
        @before_dump = before_dump
        @child_pid = nil
      end

      # The pid of a forked child dumping now, else nil.
      attr_reader :child_pid

      def path_for(name)
        File.join(@out_dir, "#{name}.json.gz")
      end

      def write(name, mode)
        raise CaptureError, "bad dump name #{name.inspect}: letters, digits, _ . - only" unless NAME.match?(name)

        prepare_out_dir
        remove_stale_temporaries
        final = path_for(name)
        # Created by the compressor, exclusive and no-follow (SafeFile).
        tmp = SafeFile.temp_name(@out_dir, "#{name}.json.gz")
        started_at = Time.now
        # The full GC before the dump stops this process too (all of its
        # threads): timed apart from the fork's pause, it is often longer.
        t_gc = now
        GC.start if @gc
        gc_seconds = now - t_gc
        memory = @memory&.call
        counts, pause, dump_seconds = mode == :fork ? write_forked(tmp) : write_inline(tmp)
        SafeFile.commit(tmp, final)
        Result.new(name: name, path: final, bytes: counts.fetch("out"), bytes_uncompressed: counts.fetch("in"),
                   mode: mode, pause_seconds: pause, dump_seconds: dump_seconds, gc_seconds: gc_seconds,
                   started_at: started_at, finished_at: Time.now, redacted: counts["redacted"] == true,
                   memory: memory)
      ensure
        SafeFile.remove(tmp)
      end

      private

      def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

      # The configured out_dir and a request's `out` alike: made 0700 when
      # missing, refused when another user owns it or may write it.
      def prepare_out_dir
        SafeFile.ensure_dir(@out_dir, "the output folder")
      end

      # Temporaries whose writer is gone (killed mid-dump, a crash): removed,
      # so they never pile up nor pass for a dump.
      def remove_stale_temporaries
        Dir.glob(File.join(@out_dir, ".*.tmp")).each do |path|
          pid = path[SafeFile::TEMP, 1]&.to_i
          next if pid.nil? || pid == Process.pid || alive?(pid)
          next unless File.lstat(path).file? && File.lstat(path).uid == Process.euid

          File.unlink(path)
        rescue SystemCallError
          nil
        end
      end

      # IO#read, with a heartbeat every HEARTBEAT seconds of silence.
      def read_all(io)
        return io.read unless @heartbeat

        text = +""
        loop do
          unless io.wait_readable(HEARTBEAT)
            @heartbeat.call
            next
          end
          chunk = io.read_nonblock(1 << 16, exception: false)
          break if chunk.nil?

          text << chunk if chunk.is_a?(String)
        end
        text
      end

      # Linux: PRIO_PROCESS with a pid sets the niceness of that thread (the
      # main one), which the threads and processes it starts inherit.
      def lower_priority(pid)
        return if @nice <= 0

        current = Process.getpriority(Process::PRIO_PROCESS, pid)
        Process.setpriority(Process::PRIO_PROCESS, pid, [current + @nice, 19].min)
      rescue SystemCallError
        nil # the compressor already ended, or not permitted: no harm
      end

      def alive?(pid)
        Process.kill(0, pid)
        true
      rescue Errno::ESRCH
        false
      rescue Errno::EPERM
        true
      end

      def spawn_compressor(tmp, input)
        result_r, result_w = IO.pipe
        env = @redact_key ? { "HEAPLEAK_CAPTURE_REDACT_KEY" => @redact_key.unpack1("H*") } : {}
        pid = Process.spawn(env, RbConfig.ruby, COMPRESSOR, tmp, in: input, out: result_w, err: File::NULL)
        lower_priority(pid) unless @lowered # a child forked to dump is lowered already: the compressor inherits it
        result_w.close
        [pid, result_r]
      end

      def finish_compressor(pid, result_r)
        text = read_all(result_r)
        result_r.close
        _, status = Process.wait2(pid)
        counts = begin
          JSON.parse(text)
        rescue JSON::ParserError
          { "error" => "the compressor died (#{status})" }
        end
        raise CaptureError, "writing the dump failed: #{counts['error']}" if counts["error"] || !status.success?

        counts
      end

      def write_inline(tmp)
        t0 = now
        raw = SafeFile.temp_name(@out_dir, "raw")
        File.open(raw, SafeFile::CREATE, 0o600) do |file|
          @before_dump&.call
          ObjectSpace.dump_all(output: file)
          file.flush
        end
        pause = now - t0
        File.open(raw) do |input|
          pid, result_r = spawn_compressor(tmp, input)
          counts = finish_compressor(pid, result_r)
          [counts, pause, now - t0]
        end
      rescue SystemCallError => e
        raise CaptureError, "writing the dump failed: #{e.message}"
      ensure
        SafeFile.remove(raw)
      end

      def write_forked(tmp)
        report_r, report_w = IO.pipe
        t0 = now
        Capture.forking_for_dump do
          @child_pid = Process.fork { dump_in_child(tmp, report_r, report_w) }
        end
        pause = now - t0
        report_w.close
        text = read_all(report_r)
        report_r.close
        _, status = Process.wait2(@child_pid)
        report = begin
          JSON.parse(text)
        rescue JSON::ParserError
          {}
        end
        unless status.success? && report["in"]
          why = report["error"] || (status.signaled? ? "the dumping child was killed by #{Signal.signame(status.termsig).then { |s| "SIG#{s}" }}" : "the dumping child exited with #{status.exitstatus}")
          raise CaptureError, why.start_with?("writing") ? why : "writing the dump failed: #{why}"
        end
        [report, pause, report.fetch("seconds")]
      ensure
        @child_pid = nil
        report_r.close if report_r && !report_r.closed?
        report_w.close if report_w && !report_w.closed?
      end

      # In the child: dump into a pipe to the compressor, report to the parent,
      # and leave with exit! (no at_exit handler, no finalizer of the parent's).
      def dump_in_child(tmp, report_r, report_w)
        report_r.close
        lower_priority(0)
        @lowered = true
        @heartbeat = nil # the client's socket is the parent's to write
        t0 = now
        pipe_r, pipe_w = IO.pipe
        pid, result_r = spawn_compressor(tmp, pipe_r)
        pipe_r.close
        begin
          @before_dump&.call
          ObjectSpace.dump_all(output: pipe_w)
        rescue SystemCallError, IOError
          nil # the compressor stopped reading: its own report says why
        ensure
          pipe_w.close unless pipe_w.closed?
        end
        counts = finish_compressor(pid, result_r)
        report_w.write(JSON.generate(counts.merge("seconds" => now - t0)))
        report_w.close
        exit!(0)
      rescue Exception => e # rubocop:disable Lint/RescueException
        report_w.write(JSON.generate("error" => e.message)) rescue nil
        exit!(1)
      end
    end
  end
end
