# frozen_string_literal: true

require_relative "memory_source"

# Picks how the next dump is taken, and says why, from the memory left:
#   fork   the child dumps while the parent serves; chosen when the room left
#          covers the pages the parent may dirty meanwhile (copy-on-write);
#   inline the process dumps itself, paused for the whole dump; only when
#          the user allowed it;
#   refuse otherwise, with the numbers.
module Heapleak
  module Capture
    class Governor
      Decision = Struct.new(:mode, :reason, :room, :need, :rss, :source, keyword_init: true) do
        def refused? = mode == :refuse

        def to_h
          { "mode" => mode.to_s, "reason" => reason, "room" => room, "need" => need, "rss" => rss, "source" => source }
        end
      end

      # Kept free beyond the estimate: the child's own pages (its stack, the
      # compressor's buffers, the page tables of the copy).
      MARGIN = 64 << 20

      # dirty_fraction: the share of the parent's resident pages it may write
      # while the child dumps (each written page is copied). A busy worker
      # writes a small part of its heap in a few seconds; one half leaves room
      # for a dump that takes long.
      def initialize(memory: MemorySource.new, allow_inline: false, dirty_fraction: 0.5)
        @memory = memory
        @allow_inline = allow_inline
        @dirty_fraction = dirty_fraction
      end

      # requested: nil (choose), :fork or :inline.
      def decide(requested: nil)
        rss = @memory.rss || 0
        reading = @memory.read
        need = (rss * @dirty_fraction).ceil + MARGIN
        room = reading.room
        base = { room: room, need: need, rss: rss, source: reading.source }
        fits = room && room >= need
        numbers = numbers_text(reading, need, rss)

        if requested == :inline
          return inline_or_refuse(base, "inline requested", numbers)
        end
        if fits
          return Decision.new(mode: :fork, reason: "fork: #{numbers}: the child dumps while this process serves", **base)
        end
        return refuse(base, "fork refused: #{numbers}") if requested == :fork

        inline_or_refuse(base, "too little room to fork (#{numbers})", numbers)
      end

      private

      def inline_or_refuse(base, why, numbers)
        if @allow_inline
          Decision.new(mode: :inline, reason: "inline: #{why}; the process pauses for the whole dump", **base)
        else
          refuse(base, "refused: #{why}; inline dumps are not allowed (allow them with " \
                       "HEAPLEAK_CAPTURE_INLINE=1 or allow_inline: true: the process pauses for the whole dump)" \
                       "#{why.include?(numbers) ? '' : " [#{numbers}]"}")
        end
      end

      def refuse(base, reason)
        Decision.new(mode: :refuse, reason: reason, **base)
      end

      def numbers_text(reading, need, rss)
        room = reading.room ? Capture.human_bytes(reading.room) : "unknown"
        limit = reading.limit ? " of #{Capture.human_bytes(reading.limit)}" : ""
        "#{room} free#{limit} (#{reading.source}), a fork needs #{Capture.human_bytes(need)} " \
          "(#{(@dirty_fraction * 100).round}% of #{Capture.human_bytes(rss)} resident + " \
          "#{Capture.human_bytes(MARGIN)})"
      end
    end
  end
end
