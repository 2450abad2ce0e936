# frozen_string_literal: true

# The fallback trigger where no control socket can be opened (or when asked
# for with HEAPLEAK_CAPTURE_SIGNAL): each signal takes one dump, named by the
# time, into the out folder. The trap handler only writes a byte to a pipe (a
# trap may not lock, nor dump); a thread does the work.
module Heapleak
  module Capture
    class SignalTrigger
      @sequence = 0

      def self.next_name
        @sequence += 1
        "heap-#{Time.now.utc.strftime('%Y%m%dT%H%M%S')}-#{Process.pid}-#{@sequence}"
      end

      # signal: nil (only as a fallback: USR2), "none", or a signal name.
      def self.install(signal, fallback:, &capture)
        return nil if signal.to_s.casecmp?("none")
        return nil if signal.nil? && !fallback

        new((signal || "USR2").to_s.sub(/\ASIG/i, "").upcase, &capture)
      end

      attr_reader :signal_name

      def initialize(name, &capture)
        @signal_name = "SIG#{name}"
        @reader, @writer = IO.pipe
        writer = @writer
        @handler = proc { writer.write_nonblock(".", exception: false) }
        previous = Signal.trap(name, @handler)
        unless replaceable?(previous)
          Signal.trap(name, previous)
          close_pipe
          @signal_name = nil
          warn "heapleak-capture: #{name} already has a handler in process #{Process.pid}: no signal trigger"
          return
        end
        @name = name
        @thread = Capture.name_thread(Thread.new { watch(&capture) }, "signal")
      end

      def close
        return unless @name

        Signal.trap(@name, "DEFAULT")
        @thread&.kill
        close_pipe
        @name = nil
      end

      # In a forked child: the pipe and thread are the parent's.
      def abandon
        close_pipe
      end

      private

      # Ours (from a parent before a fork) or the default may be replaced.
      def replaceable?(previous)
        previous.nil? || %w[DEFAULT SYSTEM_DEFAULT].include?(previous) ||
          (previous.is_a?(Proc) && previous.source_location&.first == __FILE__)
      end

      def watch
        loop do
          IO.select([@reader])
          @reader.read_nonblock(64, exception: false)
          yield
        end
      rescue IOError
        nil
      end

      def close_pipe
        @reader&.close unless @reader&.closed?
        @writer&.close unless @writer&.closed?
      rescue IOError
        nil
      end
    end
  end
end
