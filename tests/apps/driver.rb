# frozen_string_literal: true
#
# driver.rb - run one leaky application of tests/apps/*.rb through the 3-dump
# technique and write its ground truth next to the dumps.
#
#   ruby tests/apps/driver.rb APP OUTDIR traced|untraced
#
# Shape (modelled on tests/gen/leakgen.rb): boot the app, warm it up, then three
# iterations of GC, work, GC, ObjectSpace.dump_all to A/B/C. After each dump the
# driver walks what the leak's holder reaches (ObjectSpace.reachable_objects_from,
# not descending into classes and modules) and writes those addresses to a file,
# so the walk's own garbage is freed by the GC before the next dump. The leak set
# is what the holder reaches in B and C but did not reach in A; traced runs
# narrow it further to the generation window [GC.count at A, GC.count at B),
# which the evaluator reads from the dumps. truth.json is written after dump C.
# Without compaction, addresses of live objects do not move between dumps.

require 'objspace'
require 'json'
require 'fiddle'
require 'fileutils'
require 'set'

# Base class of the apps: each app file defines a subclass and registers it.
class LeakyApp
  APPS = {}
  def self.register(name) = (APPS[name] = self)

  # requests per iteration; each app scales its own work with it
  def requests = 40
  def boot; end
  def warm_up = 3.times { |i| iteration(-i - 1) }

  # describes the leak: holder object and a sentence saying what it is
  def holder = raise(NotImplementedError)
  def holder_what = raise(NotImplementedError)
  # objects the leak walk starts from (the holder, unless the leak has several parts)
  def leak_roots = [holder]
  # [[object, what]]: new in B, still in C, bounded (a pool that grew once)
  def benign = []
  # [[what, container]]: containers that must not grow from B to C
  def bounded = []
  # {containers: [{what:, accept: [objs], samples: [objs]}]} when the leak has two containers
  def split = nil
  # called right after each dump ('A', 'B', 'C'): record what only exists then
  def at_dump(_name); end
  # addresses besides the holder that `root` may rightly name (another container of the same samples)
  def root_accept = []
  # a few leaked objects for `root` (default: the holder's leaked direct references)
  def root_samples = nil
end

module Addr
  module_function

  # "0x..." address of a heap object (or of the internal object a wrapper stands for)
  def of(obj)
    if obj.is_a?(ObjectSpace::InternalObjectWrapper)
      "0x#{obj.inspect[/0x(\h+)/, 1].to_i(16).to_s(16)}"
    else
      format('0x%x', Fiddle.dlwrap(obj))
    end
  end

  def heap?(obj)
    return true if obj.is_a?(ObjectSpace::InternalObjectWrapper)
    !(obj.nil? || obj == true || obj == false || obj.is_a?(Integer) || obj.is_a?(Float) ||
      (obj.is_a?(Symbol) && Fiddle.dlwrap(obj) < 0x10000))
  rescue StandardError
    false
  end

  def stop?(obj)
    obj.is_a?(ObjectSpace::InternalObjectWrapper) ? %i[T_CLASS T_MODULE T_ICLASS].include?(obj.type) : obj.is_a?(Module)
  end

  # addresses of everything `roots` reach, not descending into classes and modules
  # (class objects themselves are recorded: an anonymous class can be leaked).
  def closure(roots)
    seen = Set.new
    stack = roots.select { |o| heap?(o) }
    until stack.empty?
      obj = stack.pop
      a = of(obj)
      next unless seen.add?(a)
      next if stop?(obj) && !roots.include?(obj)
      (ObjectSpace.reachable_objects_from(obj) || []).each { |r| stack << r if heap?(r) }
    end
    seen
  end

  def kind(obj)
    d = ObjectSpace.dump(obj)
    { 'address' => of(obj), 'type' => d[/"type":"([A-Z_]+)"/, 1], 'class' => (obj.class.name rescue nil) }
  end
end

app_name, outdir, mode = ARGV
abort('usage: ruby driver.rb APP OUTDIR traced|untraced') unless app_name && outdir && %w[traced untraced].include?(mode)
program = File.join(__dir__, 'programs', "#{app_name}.rb")
abort("unknown app #{app_name}: no #{program}") unless File.exist?(program)
require program
app = LeakyApp::APPS.fetch(app_name) { abort("#{program} registers no app #{app_name}") }.new
traced = mode == 'traced'
FileUtils.mkdir_p(outdir)

t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
app.boot
ObjectSpace.trace_object_allocations_start if traced
app.warm_up
holder_addr = Addr.of(app.holder)
gc_at = {}
%w[A B C].each_with_index do |name, idx|
  GC.start
  app.iteration(idx + 1)
  GC.start
  gc_at[name] = GC.count
  File.open(File.join(outdir, "#{name}.json"), 'w') { |f| ObjectSpace.dump_all(output: f) }
  app.at_dump(name)
  # the walk allocates: write it out and drop it before the next iteration's GC
  File.write(File.join(outdir, "reach_#{name}.txt"), Addr.closure(app.leak_roots).to_a.join("\n"))
end
reach = %w[A B C].to_h { |n| [n, Set.new(File.read(File.join(outdir, "reach_#{n}.txt")).split)] }
leak = (reach['B'] - reach['A']) & reach['C']
leak.delete(holder_addr)

split = app.split
# samples for `root`: four of the holder's direct references that leaked, spread out
samples = app.root_samples&.map { |o| Addr.of(o) }
samples ||= begin
  kids = ObjectSpace.reachable_objects_from(app.holder).select { |o| Addr.heap?(o) }.map { |o| Addr.of(o) }.select { |a| leak.include?(a) }
  kids.each_slice([kids.size / 4, 1].max).map(&:first).first(4)
end
truth = {
  'app' => app_name,
  'mode' => mode,
  'description' => app.description,
  'ruby' => RUBY_DESCRIPTION,
  'trace_object_allocations' => traced,
  'gc_count_at_dump' => gc_at,
  'window' => [gc_at['A'], gc_at['B']],
  'holder' => Addr.kind(app.holder).merge('what' => app.holder_what),
  'holder_address_at_A' => holder_addr,
  'leak' => {
    'note' => 'reached from the holder in B and C, not in A (traced: the evaluator keeps those in the generation window)',
    'count' => leak.size,
    'addresses' => leak.to_a.sort,
  },
  'root' => { 'samples' => samples, 'accept' => [holder_addr, *app.root_accept] },
  'split' => split && {
    'containers' => split[:containers].map do |c|
      { 'what' => c[:what], 'accept' => c[:accept].map { |o| Addr.of(o) }, 'samples' => c[:samples].map { |o| Addr.of(o) } }
    end,
  },
  'benign' => app.benign.map { |o, what| Addr.kind(o).merge('what' => what) },
  'bounded' => app.bounded.map { |what, o| Addr.kind(o).merge('what' => what) },
  'seconds' => (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0).round(2),
}
File.write(File.join(outdir, 'truth.json'), JSON.pretty_generate(truth))
%w[A B C].each { |n| File.delete(File.join(outdir, "reach_#{n}.txt")) }
warn "#{app_name} #{mode}: leak=#{leak.size} holder=#{holder_addr} #{truth['seconds']}s -> #{outdir}"
