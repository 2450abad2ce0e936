# frozen_string_literal: true
#
# leakgen.rb - write a 3-dump Ruby heap-leak scenario plus its ground truth.
#
#   ruby tests/gen/leakgen.rb SCENARIO SIZE [OUTDIR]
#
#   SCENARIO  one of scenarios/*.rb (class_cache | global_array | singleton_ivar)
#   SIZE      small | medium | large, or an integer number of warm-up "records"
#   OUTDIR    default: ./SCENARIO-SIZE in the current folder
#
# Environment knobs:
#   TRACE=1|0   force ObjectSpace.trace_object_allocations on/off (default: per scenario)
#   LEAK_N=int  leaked items per iteration (default: per size)
#   SEED=int    srand seed (default 42)
#   MIDGC=1|0   GC.start at the start of each iteration, after the previous request's
#               objects were dropped (default 1: makes address reuse happen)
#
# Writes OUTDIR/A.json, B.json, C.json (ObjectSpace.dump_all, one object per line)
# and OUTDIR/truth.json (see README.md beside this file for its fields).
#
# Program shape (the README of viraptor/heapleak):
#   boot + warm-up app state (many long-lived objects)
#   3.times { |iter| action(iter); GC.start; ObjectSpace.dump_all }   -> A, B, C
# Each iteration first drops the previous "last request" object graph and empties a
# bounded LRU, runs GC.start (MIDGC), then leaks LEAK_N "items" through the scenario's
# retainer, makes transient garbage, and builds a new last request and LRU content.
# The dropped objects' slots are reused by the new allocations: the address-reuse trap
# (A->B: leaked objects at addresses A showed; B->C: iteration-3 objects at addresses of
# iteration-2 objects that B showed and that are gone by C).
# A connection pool grows from 1 to 2 connections in iteration 2 and then stays:
# new in B, still in C, but bounded: the benign false positive the 3-dump technique
# cannot tell from a leak.

require 'objspace'
require 'json'
require 'fileutils'

HERE = File.expand_path(__dir__)

SIZES = {
  # records: warm-up units (~12 heap objects each); leak: leaked items per iteration
  'small'  => { records: 3_000,   leak: 300 },     # ~19-21 MB per dump
  'medium' => { records: 75_000,  leak: 8_000 },   # ~250-330 MB per dump
  'large'  => { records: 380_000, leak: 40_000 },  # ~1.7-1.9 GB per dump (with allocation tracing)
}.freeze

scenario_name = ARGV[0] or abort("usage: ruby #{$0} SCENARIO SIZE [OUTDIR]")
size_arg = ARGV[1] || 'small'
outdir = ARGV[2] || File.expand_path("#{scenario_name}-#{size_arg}")
preset = SIZES[size_arg] || { records: Integer(size_arg), leak: [Integer(size_arg) / 40, 50].max }
RECORDS = preset[:records]
LEAK_N = Integer(ENV['LEAK_N'] || preset[:leak])
srand(Integer(ENV['SEED'] || 42))

# --------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------
module Truth
  module_function

  # address / type / class of a Ruby-visible object, read back with ObjectSpace.dump
  def describe(obj)
    d = ObjectSpace.dump(obj)
    addr = d[/"address":"(0x\h+)"/, 1]
    type = d[/"type":"([A-Z_]+)"/, 1]
    klass = begin
      obj.class.name
    rescue StandardError
      nil
    end
    { 'address' => addr, 'type' => type, 'class' => klass }
  end

  # address of an internal (hidden) object returned by reachable_objects_from
  def internal_address(wrapper)
    hex = wrapper.inspect[/0x(\h+)/, 1]
    "0x#{hex.to_i(16).to_s(16)}"
  end

  # the imemo env that a Proc captured (last internal object it reaches)
  def proc_env(pr)
    w = ObjectSpace.reachable_objects_from(pr).select { |o| o.is_a?(ObjectSpace::InternalObjectWrapper) && o.type == :T_IMEMO }.last
    { 'address' => internal_address(w), 'type' => 'IMEMO', 'class' => nil, 'imemo_type' => 'env' }
  end

  # key used by heapleak's "stats" (class name for OBJECT, the Ruby type otherwise)
  def stats_key(desc)
    desc['type'] == 'OBJECT' ? desc['class'] : desc['type']
  end
end

# --------------------------------------------------------------------------------
# warm-up application state: long-lived objects of many kinds
# --------------------------------------------------------------------------------
module WarmApp
  Point = Struct.new(:x, :y, :label)

  class Customer
    attr_reader :id, :name
    def initialize(id, name, email, address, tags, point)
      @id = id
      @name = name
      @email = email
      @address = address
      @tags = tags
      @point = point
    end
  end

  module Greeting
    def greet = "hello #{name}"
  end

  STATE = { customers: [], symbols: [], procs: [], classes: [], config: {}, blobs: [] }

  def self.build(records)
    records.times do |i|
      name = "customer #{i}"
      email = "customer#{i}@example.com"
      address = { street: "#{i} Main Street", city: "City#{i % 97}", zip: (10_000 + (i % 90_000)).to_s }
      tags = ["tag#{i % 13}", "segment-#{i % 7}"]
      point = Point.new(i * 0.5, i * 0.25, "p#{i}")
      STATE[:customers] << Customer.new(i, name, email, address, tags, point)
      STATE[:symbols] << :"dyn_sym_#{i}" if (i % 10).zero?
      if (i % 50).zero?
        captured = "closure-#{i}"
        STATE[:procs] << -> { captured.size + i }
      end
      if (i % 100).zero?
        STATE[:config]["feature.#{i}"] = { 'enabled' => i.even?, 'value' => "v#{i}", 'list' => [i, "x#{i}"] }
      end
      STATE[:blobs] << ("#{i}:" + ('abcdefghij' * (20 + (i % 50)))) if (i % 200).zero?
      if (i % 500).zero?
        klass = Class.new(Customer) do
          include Greeting
          define_method(:"computed_#{i}") { @id * i }
        end
        const_set(:"Dyn#{i}", klass)
        STATE[:classes] << klass
        STATE[:customers] << klass.new(i, "dyn #{i}", "dyn#{i}@example.com", {}, [], nil)
      end
      if (i % 2000).zero?
        mod = Module.new
        mod.module_eval("def helper_#{i}(x); x * #{i} + @id.to_i; end", "generated_#{i}.rb", 1)
        const_set(:"Mod#{i}", mod)
      end
    end
  end
end

# --------------------------------------------------------------------------------
# noise common to every scenario
# --------------------------------------------------------------------------------
module Noise
  Request = Struct.new(:id, :headers, :params, :body)

  class LRU
    def initialize(cap)
      @cap = cap
      @h = {}
    end

    def clear = @h.clear

    def put(k, v)
      @h.delete(k)
      @h[k] = v
      @h.delete(@h.first[0]) while @h.size > @cap
    end
  end

  class Connection
    attr_reader :dsn, :buffers
    def initialize(n)
      @dsn = "postgres://db-#{n}.internal/app"
      @buffers = Array.new(4) { |b| "buf-#{n}-#{b}" }
      @opened_at = Time.now
    end
  end

  class Pool
    attr_reader :conns
    def initialize(max)
      @max = max
      @conns = []
    end

    # grows by one per call until @max, then reuses
    def checkout(iter)
      @conns << Connection.new(iter) if @conns.size < @max
      @conns.last
    end
  end

  LRU_CAP = [LEAK_N / 2, 20].max
  MIDGC = ENV.fetch('MIDGC', '1') == '1'
  CACHE = LRU.new(LRU_CAP)
  POOL = Pool.new(2)

  # Start of a request: drop the previous request's objects, and let a GC run now
  # (as one would at some point in a busy process). The slots it frees are reused by
  # this iteration's allocations, leaked ones included: an object leaked in iteration
  # 2 can sit at an address that A showed holding another object, and an iteration-3
  # object can sit in C at the address of an iteration-2 object that B showed.
  def self.release(iter)
    $last_request = nil
    CACHE.clear
    GC.start if MIDGC
  end

  def self.run(iter)
    # transient garbage: freed by the GC.start before the dump
    garbage = Array.new(LEAK_N * 2) { |i| "tmp-#{iter}-#{i}" * 2 }
    garbage.map!(&:upcase)
    # "last request" kept for debugging: replaced next iteration (in B, gone in C)
    $last_request = Request.new(iter, Array.new(20) { |i| "X-Header-#{i}: #{iter}" },
                                { path: "/r/#{iter}", user: "u#{iter}" }, "body-#{iter}" * 10)
    # bounded LRU: every entry of the previous iteration is evicted (in B, gone in C)
    LRU_CAP.times { |i| CACHE.put("k-#{iter}-#{i}", ["v#{iter}-#{i}", { n: i }]) }
    # pool grows to 2 connections in iteration 2 (new in B, still in C, bounded)
    POOL.checkout(iter)
    nil
  end

  def self.benign_objects
    c = POOL.conns[1]
    return [] unless c
    [c, c.dsn, c.buffers, *c.buffers, c.instance_variable_get(:@opened_at)].map do |o|
      Truth.describe(o).merge('what' => 'Noise::Pool grew to its max of 2 connections in iteration 2 (bounded, not a leak)')
    end
  end
end

# --------------------------------------------------------------------------------
# scenarios
# --------------------------------------------------------------------------------
module Scenarios
  ALL = {}

  class Base
    def self.register(name) = (ALL[name] = self)
    def trace_default = false
    def setup; end

    # retainer description helper: {address,type,class,what}
    def obj(o, what) = Truth.describe(o).merge('what' => what)
  end
end

Dir[File.join(HERE, 'scenarios', '*.rb')].sort.each { |f| require f }
scenario = Scenarios::ALL.fetch(scenario_name) { abort("unknown scenario #{scenario_name}; have #{Scenarios::ALL.keys.join(', ')}") }.new
trace = ENV['TRACE'] ? ENV['TRACE'] == '1' : scenario.trace_default

FileUtils.mkdir_p(outdir)
ObjectSpace.trace_object_allocations_start if trace

t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
scenario.setup
WarmApp.build(RECORDS)
GC.start
warm_s = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0

gc_counts = {}
dump_s = {}
%w[A B C].each_with_index do |name, idx|
  iter = idx + 1
  Noise.release(iter)
  scenario.action(iter, LEAK_N)
  Noise.run(iter)
  GC.start
  gc_counts[name] = GC.count
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  File.open(File.join(outdir, "#{name}.json"), 'w') { |f| ObjectSpace.dump_all(output: f) }
  dump_s[name] = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t).round(2)
end

# ---- ground truth (collected after dump C: no compaction, so addresses are those of B)
leaked = scenario.leaked_objects(2)
by_type = Hash.new(0)
leaked.each { |o| by_type[Truth.stats_key(o)] += 1 }
root = scenario.root_query
truth = {
  'scenario' => scenario_name,
  'size' => size_arg,
  'description' => scenario.description,
  'ruby' => RUBY_DESCRIPTION,
  'trace_object_allocations' => trace,
  'records' => RECORDS,
  'leak_items_per_iteration' => LEAK_N,
  'gc_count_at_dump' => gc_counts,
  'files' => { 'A' => 'A.json', 'B' => 'B.json', 'C' => 'C.json' },
  'leak' => {
    'iteration' => 2,
    'note' => 'objects allocated in iteration 2 (between dump A and dump B) that are still retained at dump C through the leak; all are alive in B and C at these addresses',
    'count' => leaked.size,
    'by_type' => by_type.sort_by { |k, v| [-v, k.to_s] }.to_h,
    'objects' => leaked,
  },
  'root' => root,
  'root_hard' => scenario.respond_to?(:root_query_hard) ? scenario.root_query_hard : nil,
  'benign_new' => Noise.benign_objects,
  'noise' => {
    'last_request' => '$last_request (Noise::Request struct + 20 header strings + params hash + strings) dropped at the start of every iteration: in B, freed before C',
    'lru' => "Noise::CACHE LRU of #{Noise::LRU_CAP} entries (key string, [value string, hash]) emptied and refilled every iteration: in B, freed before C",
    'mid_iteration_gc' => Noise::MIDGC,
    'garbage' => "#{LEAK_N * 2} transient strings per iteration, freed before each dump",
  },
  'timings_s' => { 'warmup' => warm_s.round(2), 'dump' => dump_s },
}
File.write(File.join(outdir, 'truth.json'), JSON.generate(truth))
warn "#{scenario_name}-#{size_arg}: records=#{RECORDS} leak_n=#{LEAK_N} trace=#{trace} leaked_objects=#{leaked.size} " \
     "warmup=#{warm_s.round(1)}s dumps=#{dump_s} -> #{outdir}"
