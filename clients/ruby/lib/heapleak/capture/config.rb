# frozen_string_literal: true

# The capture settings: keyword options to Heapleak::Capture.enable!, each
# with an environment variable as its default (so a process manager can turn
# capture on without a code change).
module Heapleak
  module Capture
    Config = Struct.new(:socket_dir, :out_dir, :allow_inline, :min_gap, :dirty_fraction, :cgroup_dir,
                        :signal, :gc, keyword_init: true) do
      # HEAPLEAK_CAPTURE_DIR      the folder of the control sockets (turns capture on)
      # HEAPLEAK_CAPTURE_OUT      where dumps go by default (DIR/dumps)
      # HEAPLEAK_CAPTURE_INLINE   1: inline dumps allowed when a fork has no room
      # HEAPLEAK_CAPTURE_MIN_GAP  seconds between two captures (30)
      # HEAPLEAK_CAPTURE_DIRTY_FRACTION  share of the resident set a fork must find free (0.5)
      # HEAPLEAK_CAPTURE_CGROUP   a folder with memory.max/memory.current read instead of our cgroup
      # HEAPLEAK_CAPTURE_SIGNAL   USR2 (or another): always trap it; none: never; unset: only
      #                           when the socket cannot be opened
      def self.from_env(env = ENV)
        new(
          socket_dir: presence(env["HEAPLEAK_CAPTURE_DIR"]),
          out_dir: presence(env["HEAPLEAK_CAPTURE_OUT"]),
          allow_inline: %w[1 true yes].include?(env["HEAPLEAK_CAPTURE_INLINE"].to_s.downcase),
          min_gap: number(env["HEAPLEAK_CAPTURE_MIN_GAP"], 30.0, "HEAPLEAK_CAPTURE_MIN_GAP"),
          dirty_fraction: number(env["HEAPLEAK_CAPTURE_DIRTY_FRACTION"], 0.5, "HEAPLEAK_CAPTURE_DIRTY_FRACTION"),
          cgroup_dir: presence(env["HEAPLEAK_CAPTURE_CGROUP"]),
          signal: presence(env["HEAPLEAK_CAPTURE_SIGNAL"]),
          gc: true
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
        raise CaptureError, "dirty_fraction must be in (0, 4]" unless dirty_fraction.positive? && dirty_fraction <= 4

        self
      end
    end
  end
end
