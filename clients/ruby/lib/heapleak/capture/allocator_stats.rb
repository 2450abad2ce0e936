# frozen_string_literal: true

require "rbconfig"

# The allocator's own view of this process's malloc memory, for the
# manifest's memory block: jemalloc's stats (mallctl) when the process runs on
# jemalloc, else glibc's mallinfo2(), both through Fiddle. Every figure is in
# bytes; nil (left out) when it cannot be read: never a guess, never zero.
module Heapleak
  module Capture
    module AllocatorStats
      # mallinfo2's struct: ten size_t, in this order (glibc >= 2.33).
      MALLINFO2 = %w[arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost].freeze
      JEMALLOC_STATS = %w[allocated active resident mapped].freeze

      module_function

      # {"allocator" => "glibc"|"jemalloc", "source" => ..., figures...} or nil.
      def read
        jemalloc || glibc
      rescue StandardError, ScriptError
        nil
      end

      # Which allocator serves malloc here, decided once: jemalloc when the
      # process maps a libjemalloc (LD_PRELOAD or linked: /proc/self/maps) or
      # Ruby was built against it (MAINLIBS names it), and its `mallctl` is
      # found in the process; else glibc when `mallinfo2` is. mallinfo2
      # answers zeros under jemalloc (it reads glibc's unused arenas), so the
      # order matters.
      def functions
        return @functions if defined?(@functions)

        @functions = load_functions
      end

      def load_functions
        require "fiddle"
        if jemalloc_mapped?
          symbol = %w[mallctl je_mallctl].lazy.map { |name| lookup(name) }.find(&:itself)
          if symbol
            return [:jemalloc, Fiddle::Function.new(symbol, [Fiddle::TYPE_VOIDP, Fiddle::TYPE_VOIDP, Fiddle::TYPE_VOIDP,
                                                             Fiddle::TYPE_VOIDP, Fiddle::TYPE_SIZE_T], Fiddle::TYPE_INT)]
          end
        end
        # mallinfo2 returns its 80-byte struct by value. Fiddle has no struct
        # returns, so it is called as the ABI calls it: on x86-64 (System V) a
        # struct this large is written to a buffer whose address the caller
        # passes as a hidden first argument (and gets back). Other ABIs pass
        # it elsewhere (AArch64: x8), where the call would write through a
        # stray pointer: there it is not called.
        symbol = lookup("mallinfo2")
        return [:glibc, Fiddle::Function.new(symbol, [Fiddle::TYPE_VOIDP], Fiddle::TYPE_VOIDP)] if symbol && x86_64_linux?

        nil
      rescue StandardError, ScriptError
        nil
      end

      def lookup(name)
        Fiddle::Handle::DEFAULT[name]
      rescue Fiddle::DLError
        nil
      end

      def x86_64_linux?
        RbConfig::CONFIG["host_cpu"] =~ /\A(x86_64|amd64)\z/ && RbConfig::CONFIG["host_os"].include?("linux")
      end

      def jemalloc_mapped?
        RbConfig::CONFIG["MAINLIBS"].to_s.include?("jemalloc") ||
          File.foreach("/proc/self/maps").any? { |line| line.include?("libjemalloc") }
      rescue SystemCallError
        false
      end

      # arena: bytes malloc took from the system for its arenas (brk and
      # arena heaps); in_use: bytes handed out (uordblks, in arenas, plus
      # hblkhd, chunks mmapped one by one); free_held: free chunks inside the
      # arenas, kept from the system (fordblks); mmapped: hblkhd; keepcost:
      # the free top chunk malloc_trim could give back.
      def glibc
        kind, function = functions
        return nil unless kind == :glibc

        buffer = Fiddle::Pointer.malloc(8 * MALLINFO2.size, Fiddle::RUBY_FREE)
        function.call(buffer)
        raw = MALLINFO2.zip(buffer.to_str(8 * MALLINFO2.size).unpack("Q#{MALLINFO2.size}")).to_h
        { "allocator" => "glibc", "source" => "mallinfo2", "arena" => raw["arena"],
          "in_use" => raw["uordblks"] + raw["hblkhd"], "free_held" => raw["fordblks"],
          "mmapped" => raw["hblkhd"], "keepcost" => raw["keepcost"] }
      end

      # stats.* are cached until "epoch" is written: bumped first. in_use is
      # stats.allocated; free_held is resident minus allocated (pages jemalloc
      # keeps dirty or for its metadata, not yet purged).
      def jemalloc
        kind, mallctl = functions
        return nil unless kind == :jemalloc

        epoch = Fiddle::Pointer.malloc(8, Fiddle::RUBY_FREE)
        epoch[0, 8] = [1].pack("Q")
        return nil unless mallctl.call("epoch", nil, nil, epoch, 8).zero?

        stats = JEMALLOC_STATS.to_h { |name| [name, mallctl_size(mallctl, "stats.#{name}")] }
        return nil if stats.values.any?(&:nil?)

        { "allocator" => "jemalloc", "source" => "mallctl", "allocated" => stats["allocated"],
          "active" => stats["active"], "resident" => stats["resident"], "mapped" => stats["mapped"],
          "in_use" => stats["allocated"], "free_held" => [stats["resident"] - stats["allocated"], 0].max }
      end

      def mallctl_size(mallctl, name)
        value = Fiddle::Pointer.malloc(8, Fiddle::RUBY_FREE)
        length = Fiddle::Pointer.malloc(8, Fiddle::RUBY_FREE)
        length[0, 8] = [8].pack("Q")
        return nil unless mallctl.call(name, value, length, nil, 0).zero?

        value[0, 8].unpack1("Q")
      end
    end
  end
end
