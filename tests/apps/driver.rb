# frozen_string_literal: true
#
# driver.rb - run one leaky application of tests/apps/programs through the 3-dump
# technique and write its ground truth next to the dumps.
#
#   ruby tests/apps/driver.rb APP OUTDIR traced|untraced
#
# Shape (modelled on tests/gen/leakgen.rb): boot the app, warm it up, then three
# iterations of GC, work, GC, ObjectSpace.dump_all to A/B/C. After each dump the
# driver records (to files, so that its own garbage is freed by the GC before the
# next dump) the object ids of everything alive at A, and after B and C the new
# objects (not alive at A) that the leak's holder reaches through new objects
# (ObjectSpace.reachable_objects_from, not entering classes and modules). The leak
# set is those reached in both B and C. The same ids give the window set in any mode
# (objects not alive at A, alive in B and C); traced runs can check both against the
# generation window [GC.count at A, GC.count at B] that the evaluator reads from
# the dumps. truth.json is written after dump C.
# Without compaction, addresses of live objects do not move between dumps (an app's
# compact_before runs GC.compact before that dump: then they do, and the truth is still
# by object id).

require 'objspace'
require 'json'
require 'fileutils'
require 'set'

require_relative 'leaky_app'
require_relative 'heap_walk'

app_name, outdir, mode = ARGV
abort('usage: ruby driver.rb APP OUTDIR traced|untraced') unless app_name && outdir && %w[traced untraced].include?(mode)
abort("bad app name #{app_name.inspect}: letters, digits and _ only") unless app_name.match?(/\A\w+\z/)
program = File.join(__dir__, 'programs', "#{app_name}.rb")
abort("unknown app #{app_name}: no #{program}") unless File.exist?(program)
require program
# HEAPLEAK_APP_SEED: the apps that draw random numbers draw them from this seed (the
# same program, another workload: `check` must give the same verdict on every seed)
srand(Integer(ENV.fetch('HEAPLEAK_APP_SEED', '1')))
app = LeakyApp::APPS.fetch(app_name) { abort("#{program} registers no app #{app_name}") }.new
traced = mode == 'traced'
FileUtils.mkdir_p(outdir)

t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
app.boot
ObjectSpace.trace_object_allocations_start if traced
app.warm_up
holder_addr = app.holder && app.holder_born == 'A' ? Addr.of(app.holder) : nil
old_file = File.join(outdir, 'alive_at_A.txt')
# after each dump: the walks allocate, so write them out and drop them before the next
# iteration's GC
walk = lambda do |name, limit = nil|
  # untraced while walking: tracing the wrappers and strings it makes is slow, and they
  # are all garbage; objects traced so far keep their allocation info
  ObjectSpace.trace_object_allocations_stop if traced
  if name == 'A'
    File.write(old_file, Addr.everything(limit).keys.join("\n"))
  else
    old = Set.new(File.read(old_file).split.map { |i| Integer(i) })
    File.write(File.join(outdir, "reach_#{name}.txt"), Addr.new_closure(app.leak_roots, old).map { |i, a| "#{i} #{a}\n" }.join)
    File.write(File.join(outdir, "new_#{name}.txt"), Addr.everything(limit).reject { |i, _| old.include?(i) }.map { |i, a| "#{i} #{a}\n" }.join)
  end
  ObjectSpace.trace_object_allocations_start if traced
end
# run every walk once (on part of the heap) before A, so that the call caches of
# the walks' own code exist before the diff
%w[A B].each { |name| walk.call(name, 2000) }
gc_at = {}
%w[A B C].each_with_index do |name, idx|
  GC.start
  app.iteration(idx + 1)
  GC.start
  GC.compact if app.compact_before == name
  gc_at[name] = GC.count
  File.open(File.join(outdir, "#{name}.json"), 'w') { |f| ObjectSpace.dump_all(output: f) }
  app.at_dump(name)
  walk.call(name)
end
holder_addr ||= app.holder && Addr.of(app.holder) # a holder created between A and B
# by object id, never reused (an address is, once its object is freed); the leak set
# is named by its addresses in B, which are those in C (no compaction)
read_ids = ->(f) { File.readlines(File.join(outdir, f)).to_h { |l| l.split.then { |i, a| [Integer(i), a] } } }
reach = %w[B C].to_h { |n| [n, read_ids["reach_#{n}.txt"]] }
leak = Set.new(reach['B'].select { |i, _| reach['C'].key?(i) }.values)
# the window set measured in-process (any mode): objects not alive at A, alive in B and still in C
fresh = %w[B C].to_h { |n| [n, read_ids["new_#{n}.txt"]] }
window = fresh['B'].select { |i, _| fresh['C'].key?(i) }.values.sort

split = app.split
# samples for `root`: four of the holder's direct references that leaked, spread out
samples = app.root_samples&.map { |o| Addr.of(o) }
samples ||= [] unless app.holder # a leak-free app (true_leaks 0)
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
  'holder' => (app.holder ? Addr.kind(app.holder) : { 'address' => nil, 'root' => app.holder_root }).merge('what' => app.holder_what),
  'holder_address_at_A' => holder_addr,
  'holder_grows' => app.holder_grows,
  'holder_born' => app.holder_born,
  'compact_before' => app.compact_before,
  'min_recall' => app.min_recall,
  'leak' => {
    'note' => 'objects not alive at A that the holder reaches through such objects in B and still in C',
    'count' => leak.size,
    'addresses' => leak.to_a.sort,
  },
  'window_objects' => {
    'note' => 'addresses in B of the objects not alive at A and still alive at C, by object id (each_object and the internals they reach)',
    'count' => window.size,
    'addresses' => window,
  },
  'root' => { 'samples' => samples, 'accept' => [holder_addr, *app.root_accept] },
  'split' => split && {
    'containers' => split[:containers].map do |c|
      { 'what' => c[:what], 'accept' => c[:accept].map { |o| Addr.of(o) }, 'samples' => c[:samples].map { |o| Addr.of(o) } }
    end,
  },
  'benign' => app.benign.map { |o, what| Addr.kind(o).merge('what' => what) },
  'bounded' => app.bounded.map { |what, o, cap| Addr.kind(o).merge('what' => what, 'cap' => cap).compact },
  'replaced' => app.replaced.map do |what, addresses, cap, owner|
    { 'what' => what, 'addresses' => addresses, 'cap' => cap, 'owner' => Addr.of(owner) }
  end,
  'made_once' => app.made_once.map { |o, what| Addr.kind(o).merge('what' => what) },
  'grows' => app.grows.map { |o, what| Addr.kind(o).merge('what' => what) },
  'first_row_accept' => app.first_row_accept.map { |o| Addr.of(o) },
  'true_leaks' => app.true_leaks,
  'seconds' => (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0).round(2),
}
File.write(File.join(outdir, 'truth.json'), JSON.pretty_generate(truth))
[old_file, *%w[B C].flat_map { |n| [File.join(outdir, "reach_#{n}.txt"), File.join(outdir, "new_#{n}.txt")] }].each { |f| File.delete(f) }
warn "#{app_name} #{mode}: leak=#{leak.size} holder=#{holder_addr} #{truth['seconds']}s -> #{outdir}"
