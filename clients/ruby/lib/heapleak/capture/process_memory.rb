# frozen_string_literal: true

require "objspace"
require "time"
require "etc"
require_relative "allocator_stats"

# Where this process's memory is at one moment, for the manifest's `memory`
# block (format version 2): the kernel's resident set (smaps_rollup), the
# Ruby heap's slots and pages (GC.stat), malloc's own view (AllocatorStats)
# and, opted in, ObjectSpace.memsize_of_all. Read in the process that owns
# the memory (in fork mode the parent, just before the fork). A figure that
# cannot be read is left out; reading never raises.
module Heapleak
  module Capture
    module ProcessMemory
      # smaps_rollup's fields kept, in kB there, in bytes here.
      ROLLUP = { "Rss" => "rss", "Pss" => "pss", "Anonymous" => "anonymous", "Swap" => "swap",
                 "Private_Dirty" => "private_dirty", "Shared_Clean" => "shared_clean" }.freeze
      GC_KEYS = %i[heap_allocated_pages heap_eden_pages heap_tomb_pages heap_available_slots heap_live_slots
                   heap_free_slots total_allocated_pages total_freed_pages malloc_increase_bytes
                   oldmalloc_increase_bytes].freeze

      module_function

      # memsize_of_all: walks every object (about 0.02 s per million live objects on 3.1,
      # the process paused meanwhile: README "Memory figures"), so only when
      # asked. proc_root: tests point it at a fake /proc/self.
      def read(memsize_of_all: false, proc_self: "/proc/self")
        t0 = now
        memory = { "pid" => Process.pid, "taken_at" => Time.now.utc.iso8601(6) }
        safely { memory["rss"] = rss(proc_self) }
        safely { memory["ruby_heap"] = ruby_heap }
        safely { memory["malloc"] = AllocatorStats.read }
        if memsize_of_all
          safely do
            t1 = now
            total = ObjectSpace.memsize_of_all
            memory["memsize_of_all"] = { "bytes" => total, "seconds" => (now - t1).round(6) }
          end
        end
        memory["seconds"] = (now - t0).round(6)
        memory.compact
      end

      def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

      def safely
        yield
      rescue StandardError, ScriptError
        nil
      end

      # Rss, Pss, Anonymous, Swap... in bytes, and file = Rss - Anonymous
      # (code, mapped gems and files: shared, cheap). /proc/self/status
      # (VmRSS, RssAnon) where smaps_rollup is missing (kernels < 4.14).
      def rss(proc_self)
        rollup = File.read(File.join(proc_self, "smaps_rollup"))
        figures = { "source" => "smaps_rollup" }
        ROLLUP.each { |field, key| figures[key] = kb(rollup, field) }
        finish_rss(figures)
      rescue SystemCallError
        status = File.read(File.join(proc_self, "status"))
        finish_rss({ "source" => "status", "rss" => kb(status, "VmRSS"), "anonymous" => kb(status, "RssAnon"),
                     "swap" => kb(status, "VmSwap") })
      end

      def finish_rss(figures)
        return nil unless figures["rss"]

        figures["file"] = figures["rss"] - figures["anonymous"] if figures["anonymous"]
        figures.compact
      end

      def kb(text, field)
        value = text[/^#{field}:\s+(\d+) kB$/, 1]
        value && Integer(value) * 1024
      end

      # GC.stat's slots and pages, and what they are in bytes: slot_size,
      # page_size, free_slot_bytes (free slots in pages the heap holds).
      # pages_from: where Ruby takes its heap pages. From 3.1 on, mmap
      # wherever the system's page is no larger than a heap page (the
      # compactor's read barrier mprotects them); else posix_memalign, and
      # "malloc" tells heapleak they are inside malloc's in_use figure.
      def ruby_heap
        stat = GC.stat
        heap = GC_KEYS.to_h { |key| [key.to_s, stat[key]] }.compact
        constants = GC::INTERNAL_CONSTANTS
        slot_size = constants[:BASE_SLOT_SIZE] || constants[:RVALUE_SIZE]
        page_size = constants[:HEAP_PAGE_SIZE]
        heap["slot_size"] = slot_size
        heap["page_size"] = page_size
        heap["pages_from"] = page_size && Etc.sysconf(Etc::SC_PAGESIZE) <= page_size ? "mmap" : "malloc"
        heap["page_bytes"] = stat[:heap_allocated_pages] * page_size if page_size && stat[:heap_allocated_pages]
        free = free_slot_bytes(stat, slot_size)
        heap["free_slot_bytes"] = free if free
        heap.compact
      end

      # One slot size (3.1): free slots x that size. Size pools (3.2+): each
      # pool's free slots x its slot size, counted where GC.stat_heap gives
      # them (4.0: heap_free_slots; 3.3, 3.4: its slots less its objects
      # allocated and not freed); else not known in bytes (3.2: left out).
      def free_slot_bytes(stat, slot_size)
        pools = GC.respond_to?(:stat_heap) ? GC.stat_heap : nil
        if pools.is_a?(Hash) && pools.size > 1
          free = pools.values.map { |pool| pool_free_slots(pool)&.*(pool[:slot_size]) }
          return free.include?(nil) ? nil : free.sum
        end
        slot_size && stat[:heap_free_slots] && stat[:heap_free_slots] * slot_size
      end

      def pool_free_slots(pool)
        return nil unless pool[:slot_size]
        return pool[:heap_free_slots] if pool[:heap_free_slots]
        return nil unless pool[:heap_eden_slots] && pool[:total_allocated_objects] && pool[:total_freed_objects]

        slots = pool[:heap_eden_slots] + pool.fetch(:heap_tomb_slots, 0)
        [slots - (pool[:total_allocated_objects] - pool[:total_freed_objects]), 0].max
      end
    end
  end
end
