# frozen_string_literal: true

# The capture settings: keyword options to Heapleak::Capture.enable!, each
# with an environment variable as its default (so a process manager can turn
# capture on without a code change).
module Heapleak
  module Capture
    Config = Struct.new(:socket_dir, :out_dir, :allow_inline, :min_gap, :dirty_fraction, :cgroup_dir,
                        :signal, :gc, :redact, :redact_key_file, :request_timeout, :max_connections, :nice,
                        :memsize_of_all, keyword_init: true) do
      # HEAPLEAK_CAPTURE_DIR      the folder of the control sockets (turns capture on)
      # HEAPLEAK_CAPTURE_OUT      where dumps go by default (DIR/dumps)
      # HEAPLEAK_CAPTURE_INLINE   1: inline dumps allowed when a fork has no room
      # HEAPLEAK_CAPTURE_MIN_GAP  seconds between two captures (30)
      # HEAPLEAK_CAPTURE_DIRTY_FRACTION  share of the resident set a fork must find free (0.5)
      # HEAPLEAK_CAPTURE_CGROUP   a folder with memory.max/memory.current read instead of our cgroup
      # HEAPLEAK_CAPTURE_SIGNAL   USR2 (or another): always trap it; none: never; unset: only
      #                           when the socket cannot be opened
      # HEAPLEAK_CAPTURE_REDACT   1: every string value is redacted as it is written
      # HEAPLEAK_CAPTURE_REDACT_KEY_FILE  the key (>= 16 bytes), shared by a fleet; else
      #                           one random key per process
      # HEAPLEAK_CAPTURE_REQUEST_TIMEOUT  seconds a connection has to send its request (10)
      # HEAPLEAK_CAPTURE_MAX_CONNECTIONS  connections served at once (16)
      # HEAPLEAK_CAPTURE_NICE     niceness added to the dumping child and the compressor (10; 0: none)
      # HEAPLEAK_CAPTURE_MEMSIZE_OF_ALL  1: the manifest records ObjectSpace.memsize_of_all
      #                           (it walks the heap: ~0.02 s per million objects, paused)
      def self.from_env(env = ENV)
        new(
          socket_dir: presence(env["HEAPLEAK_CAPTURE_DIR"]),
          out_dir: presence(env["HEAPLEAK_CAPTURE_OUT"]),
          allow_inline: %w[1 true yes].include?(env["HEAPLEAK_CAPTURE_INLINE"].to_s.downcase),
          min_gap: number(env["HEAPLEAK_CAPTURE_MIN_GAP"], 30.0, "HEAPLEAK_CAPTURE_MIN_GAP"),
          dirty_fraction: number(env["HEAPLEAK_CAPTURE_DIRTY_FRACTION"], 0.5, "HEAPLEAK_CAPTURE_DIRTY_FRACTION"),
          cgroup_dir: presence(env["HEAPLEAK_CAPTURE_CGROUP"]),
          signal: presence(env["HEAPLEAK_CAPTURE_SIGNAL"]),
          gc: true,
          redact: %w[1 true yes].include?(env["HEAPLEAK_CAPTURE_REDACT"].to_s.downcase),
          redact_key_file: presence(env["HEAPLEAK_CAPTURE_REDACT_KEY_FILE"]),
          request_timeout: number(env["HEAPLEAK_CAPTURE_REQUEST_TIMEOUT"], 10.0, "HEAPLEAK_CAPTURE_REQUEST_TIMEOUT"),
          max_connections: number(env["HEAPLEAK_CAPTURE_MAX_CONNECTIONS"], 16, "HEAPLEAK_CAPTURE_MAX_CONNECTIONS").to_i,
          nice: number(env["HEAPLEAK_CAPTURE_NICE"], 10, "HEAPLEAK_CAPTURE_NICE").to_i,
          memsize_of_all: %w[1 true yes].include?(env["HEAPLEAK_CAPTURE_MEMSIZE_OF_ALL"].to_s.downcase)
        )
      end

      def self.presence(value) = value.to_s.empty? ? nil : value

      def self.number(text, default, name)
        return default if text.to_s.empty?

        Float(text)
      rescue ArgumentError
        raise CaptureError, "#{name} is not a number: #{text.inspect}"
      end

      def merge(**options)
        unknown = options.keys - members
        raise ArgumentError, "unknown capture options: #{unknown.join(', ')}" unless unknown.empty?

        self.class.new(**to_h.merge(options))
      end

      def validate!
        raise CaptureError, "no socket_dir: set HEAPLEAK_CAPTURE_DIR or pass socket_dir:" unless socket_dir

        self.socket_dir = File.expand_path(socket_dir)
        self.out_dir = File.expand_path(out_dir || File.join(socket_dir, "dumps"))
        raise CaptureError, "min_gap must be >= 0" if min_gap.negative?
        raise CaptureError, "request_timeout must be > 0" unless request_timeout.positive?
        raise CaptureError, "max_connections must be >= 1" unless max_connections >= 1
        raise CaptureError, "dirty_fraction must be in (0, 4]" unless dirty_fraction.positive? && dirty_fraction <= 4

        self
      end

      # The redaction key: the key file's bytes, else one random key for the
      # life of this process (every dump of a series redacted alike).
      def redact_key
        return nil unless redact

        @redact_key ||= if redact_key_file
                          key = File.binread(redact_key_file)
                          raise CaptureError, "#{redact_key_file}: a redaction key has at least 16 bytes" if key.bytesize < 16

                          key
                        else
                          require "securerandom"
                          SecureRandom.bytes(32)
                        end
      rescue SystemCallError => e
        raise CaptureError, "cannot read the redaction key: #{e.message}"
      end
    end
  end
end
