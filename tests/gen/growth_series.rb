# frozen_string_literal: true
# growth_series.rb: N dumps D1..DN (ObjectSpace.dump_all, N >= 2) of a
# program whose containers grow in known ways, for `explain` over a series:
#   AuditTrail::ENTRIES  the steady leak: 300 Hashes (each with a String)
#                        appended in every interval, never trimmed
#   TemplateCache::TABLE a warm-up cache: 3000 templates filled in the first
#                        interval, then only read (grew once, then stopped)
#   BurstStore::ITEMS    grows in bursts, in the first and the last interval
#                        only: 2000 strings of 1 KiB each time, so it retains
#                        the most bytes of the three
# Each interval also makes garbage, freed by the GC before its dump.
#   ruby tests/gen/growth_series.rb N OUTDIR   -> OUTDIR/D1.json ... DN.json
require 'objspace'
require 'fileutils'

count = Integer(ARGV.fetch(0, '5'))
outdir = ARGV.fetch(1, '.')
abort('usage: growth_series.rb N OUTDIR (N >= 2)') if count < 2
FileUtils.mkdir_p(outdir)

class AuditTrail
  ENTRIES = []
  def self.record(id) = ENTRIES << { id: id, note: "request #{id} was served " + ('x' * 40) }
end

class TemplateCache
  TABLE = {}
  def self.fetch(key) = TABLE[key] ||= "template #{key} " + ('t' * 200)
end

class BurstStore
  ITEMS = []
end

def dump(outdir, name)
  GC.start(full_mark: true, immediate_sweep: true)
  File.open(File.join(outdir, "#{name}.json"), 'w') { |f| ObjectSpace.dump_all(output: f) }
end

served = 0
100.times { AuditTrail.record(served += 1) }  # what the process held before D1
dump(outdir, 'D1')
(1...count).each do |interval|
  3000.times { |key| TemplateCache.fetch(key) } if interval == 1  # warming up
  300.times do
    AuditTrail.record(served += 1)
    TemplateCache.fetch(served % 3000)  # always there from now on
    Array.new(20) { |i| "garbage #{i}" }  # freed before the dump
  end
  if interval == 1 || interval == count - 1
    2000.times { |i| BurstStore::ITEMS << "burst #{interval}/#{i} " + ('b' * 1024) }
  end
  dump(outdir, "D#{interval + 1}")
end
