# many_leaks.rb OUTDIR: a Ruby program with 100 leaks (100 classes, each
# holding an Array that gains 5 + i strings per step), dumped four times
# (D1..D4.json, allocation tracing on): the report test's large page, a
# series of 100 rows.
require 'objspace'
out = ARGV.fetch(0)
ObjectSpace.trace_object_allocations_start
CACHES = (1..100).map do |i|
  Object.const_set("Cache#{i}", Class.new { @store = []; class << self; attr_reader :store; end })
end

def grow
  CACHES.each_with_index { |cache, i| (5 + i).times { |k| cache.store << "entry #{i} #{k}" * 2 } }
end

(1..4).each do |n|
  grow
  GC.start
  File.open(File.join(out, "D#{n}.json"), 'w') { |f| ObjectSpace.dump_all(output: f) }
end
