# frozen_string_literal: true

# A threaded workload that frees everything it allocates: 16 threads each
# append Strings of random size (500 B to 8.5 KB) to a window of the last
# 1,000 for 10,000 rounds, then drop them and GC. Nothing stays alive, but
# glibc gives each thread an arena of its own (up to 8 per core) and cannot
# hand back the holes freed inside them: RSS grows, malloc's free-but-held
# grows with it. Under MALLOC_ARENA_MAX=2 the threads share one arena.
module MemoryPrograms
  module ArenaFragmentation
    module_function

    def phase(number)
      Array.new(16) do |t|
        Thread.new do
          rng = Random.new((number * 100) + t) # the same sizes on every run
          window = []
          10_000.times do
            window << ("x" * rng.rand(500..8500))
            window.shift if window.size > 1000
          end
          window.clear
          nil
        end
      end.each(&:join)
      GC.start
    end
  end
end
