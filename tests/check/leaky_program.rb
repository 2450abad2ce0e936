# A leaky program for heapleak check's end-to-end test (tests/check): two
# leaks, PriceCalculator.@_memo (always) and EventLog.@entries (SECOND_LEAK
# 1), SCALE times the memo's growth per step; dumps its heap three times
# (A, B, C) into OUTDIR, with allocation tracing when TRACE is 1.
#   ruby leaky_program.rb OUTDIR TRACE SECOND_LEAK SCALE
require 'objspace'
out, trace, second, scale = ARGV
scale = Integer(scale || '1')
ObjectSpace.trace_object_allocations_start if trace == '1'

module PriceCalculator
  Quote = Struct.new(:sku, :price, :notes)
  @_memo = {}
  def self.quote(sku)
    @_memo[sku] ||= Quote.new(sku, sku.size * 3, "quote for #{sku}") # QUOTE_SITE
  end
end

class EventLog
  @entries = []
  def self.record(name)
    @entries << "event #{name} recorded at step #{@entries.size}" # EVENT_SITE
  end
end

def work(round, second, scale)
  (100 * scale).times { |i| PriceCalculator.quote("sku-#{round}-#{i}") }
  50.times { |i| EventLog.record("#{round}-#{i}") } if second
  garbage = Array.new(300) { |i| "garbage #{i}" * 2 }
  garbage.clear
end

def dump(out, name)
  GC.start
  File.open(File.join(out, "#{name}.json"), 'w') { |f| ObjectSpace.dump_all(output: f) }
end

work(0, second == '1', scale)
dump(out, 'A')
work(1, second == '1', scale)
dump(out, 'B')
work(2, second == '1', scale)
dump(out, 'C')
