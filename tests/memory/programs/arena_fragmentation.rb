# frozen_string_literal: true

# A threaded workload that frees everything it allocates: 16 threads each
# append Strings of random size (500 B to 8.5 KB) to a window of the last
# 1,000 for 10,000 rounds, then drop them and GC. Nothing stays alive, but
# glibc gives each thread an arena of its own (up to 8 per core) and cannot
# hand back the holes freed inside them: RSS grows, malloc's free-but-held
# grows with it. Under MALLOC_ARENA_MAX=2 the threads share two arenas, and
# each reuses what the one before it freed.
# The threads are all alive before any works (each has its arena: an arena
# is handed to a thread at its first malloc, and a thread that has ended
# hands its arena on), then work one at a time: the same allocations in the
# same order however busy the machine is (interleaved by the GVL's time
# slices, the default run grew 360-398 MiB on a quiet machine and 224 MiB on
# a busy one, no more than under MALLOC_ARENA_MAX=2).
module MemoryPrograms
  module ArenaFragmentation
    module_function

    def phase(number)
      started = Queue.new
      go = Queue.new
      one_at_a_time = Mutex.new
      threads = Array.new(16) do |t|
        Thread.new do
          rng = Random.new((number * 100) + t) # the same sizes on every run
          window = ["x" * 1000] # this thread's first malloc: its arena
          started << t
          go.pop
          one_at_a_time.synchronize do
            10_000.times do
              window << ("x" * rng.rand(500..8500))
              window.shift if window.size > 1000
            end
            window.clear
          end
          nil
        end
      end
      16.times { started.pop }
      16.times { go << true }
      threads.each(&:join)
      GC.start
    end
  end
end
