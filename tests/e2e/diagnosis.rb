# frozen_string_literal: true
# diagnosis.rb: end-to-end test of issue 12 on a Ruby program written here.
# Between dumps A and B, 200 old Strings become shared (JSON-encoded with
# ActiveSupport loaded: their record loses `value` and gains `shared` and a
# reference) and objects get finalizers (WeakMap, WeakRef, define_finalizer),
# whose hidden finalizer-table Arrays are new in B and alive in C. The real
# leak is Store.@items, an Array that grows by 100 Strings per iteration.
# Checks, traced and untraced: no old String is reported new; explain's first
# row is held by Store's Array, with its growth; the finalizer tables are
# noise with reason finalizerTable, never a leak row.
#
#   ruby diagnosis.rb HEAPLEAK WORKDIR

require_relative 'helper'

heapleak, work = ARGV
abort('usage: diagnosis.rb HEAPLEAK WORKDIR') unless work
E2E.heapleak = heapleak
FileUtils.rm_rf(work)
FileUtils.mkdir_p(work)

PROGRAM = <<~'RUBY'
  require 'objspace'
  require 'json'
  require 'weakref'
  require 'active_support'
  require 'active_support/core_ext/object/json'
  out, trace = ARGV
  ObjectSpace.trace_object_allocations_start if trace == '1'

  class Store
    @items = []
    class << self
      attr_reader :items
    end
  end

  OLD = Array.new(200) { |i| "an old string, number #{i}, long enough for the heap" }
  WEAK = ObjectSpace::WeakMap.new
  KEPT = []

  def work(round)
    100.times { |i| Store.items << "leaked string #{round}-#{i}, long enough for the heap" }
    garbage = Array.new(500) { |i| "garbage #{i}" * 3 }
    garbage.clear
  end

  def dump(out, name)
    GC.start
    File.open(File.join(out, "#{name}.json"), 'w') { |f| ObjectSpace.dump_all(output: f) }
  end

  work(0)
  dump(out, 'A')
  File.write(File.join(out, 'old.json'), JSON.generate(OLD.map { |s| JSON.parse(ObjectSpace.dump(s))['address'] }))
  OLD.each { |s| { 'u' => s }.to_json } # each becomes a shared string, in place
  30.times do
    o = Object.new
    KEPT << o
    WEAK[o] = o
    ObjectSpace.define_finalizer(o, proc {})
    KEPT << WeakRef.new(o)
  end
  work(1)
  dump(out, 'B')
  File.write(File.join(out, 'shared.json'), JSON.generate(OLD.map { |s| JSON.parse(ObjectSpace.dump(s))['shared'] == true }))
  work(2)
  dump(out, 'C')
  File.write(File.join(out, 'holder.txt'), JSON.parse(ObjectSpace.dump(Store.items))['address'])
RUBY

program = File.join(work, 'program.rb')
File.write(program, PROGRAM)

%w[0 1].each do |trace|
  dir = File.join(work, "trace#{trace}")
  FileUtils.mkdir_p(dir)
  E2E.sh('ruby', program, dir, trace)
  a, b, c = %w[A B C].map { |n| File.join(dir, "#{n}.json") }
  old = JSON.parse(File.read(File.join(dir, 'old.json')))
  shared = JSON.parse(File.read(File.join(dir, 'shared.json')))
  holder = File.read(File.join(dir, 'holder.txt')).strip
  E2E.info("traced=#{trace}: #{shared.count(true)} of #{old.size} old strings became shared")
  E2E.check(shared.count(true) >= 150, "traced=#{trace}: the program made the old strings shared (the defect's trigger)")

  stats = E2E.json('stats', a, b, c, '--json')
  if stats
    got = E2E.reported(stats)
    wrongly = old.count { |x| got[x] }
    E2E.check(wrongly.zero?, "traced=#{trace}: no old String that became shared is reported new", "#{wrongly} reported")
  end

  exp = E2E.json('explain', a, b, c, '--json', '--limit', '50')
  next unless exp

  first = exp['leaks'].first || {}
  E2E.check(first.dig('holder', 'address') == holder, "traced=#{trace}: explain's first row is held by Store.@items",
            "got #{first['key']} #{first.dig('holder', 'address')}, want #{holder}")
  E2E.check(first.dig('reach', 'name') == 'Store' && first['key'] == 'Array in Store', "traced=#{trace}: the row says Array in Store",
            first['key'].inspect)
  g = first['growth'] || {}
  E2E.check(g['field'] == 'length' && g['baseline'] == 100 && g['target'] == 200 && g['later'] == 300,
            "traced=#{trace}: the holder grows 100 -> 200 -> 300", g.inspect)
  E2E.check(first['count'] >= 100, "traced=#{trace}: the first row holds the 100 leaked strings", first['count'].to_s)
  finalizers = exp['noise'].select { |n| n['reason'] == 'finalizerTable' }
  E2E.check(!finalizers.empty? && finalizers.all? { |n| n['why'].to_s.include?('finalizers') },
            "traced=#{trace}: finalizer tables are noise, with why", exp['noise'].map { |n| [n['key'], n['reason']] }.inspect)
  E2E.check(exp['leaks'].none? { |l| l['root'] == 'finalizers' }, "traced=#{trace}: no leak row hangs off the finalizers root")
  E2E.check(exp['leaks'].each_cons(2).all? { |x, y| x['retained'] >= y['retained'] }, "traced=#{trace}: leaks ranked by retained")
end

E2E.finish
