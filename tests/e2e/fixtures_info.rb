# frozen_string_literal: true
# fixtures_info.rb: end-to-end smoke test loading every public fixture with
# `heapleak info --json`: Ruby 2.5-3.2 record layouts, gzip and plain, ROOT
# categories, ZOMBIE, FLOAT nan/inf, SHAPE records, partial dumps without ROOT.
#
#   ruby fixtures_info.rb HEAPLEAK FIXTURES_DIR

require_relative 'helper'

heapleak, fixtures = ARGV
abort('usage: fixtures_info.rb HEAPLEAK FIXTURES_DIR') unless fixtures
E2E.heapleak = heapleak

# file => [objects (non-ROOT, non-SHAPE lines), ZOMBIE among them, has ROOT records]
EXPECT = {
  'rbheap-3dump/heap1.jsonl.gz' => [17_566, 0, true],
  'heapy/my_dump_1.json.gz' => [14_401, 6, true],
  'heap-profiler/ruby-3.0-singleton-classes.heap.gz' => [6_755, 0, true],
  'heap-profiler/ruby-3.2-partial-retained.heap' => [28, 0, false],
  'heap-profiler/ruby-3.2-partial-empty.heap' => [8, 0, false],
}.freeze

EXPECT.each do |rel, (objects, zombies, full)|
  info = E2E.json('info', File.join(fixtures, rel), '--json') or next
  E2E.info("#{rel}: objects #{info['objects'].inspect} roots #{info['roots'].inspect} " \
           "broken #{E2E.broken_lines(info)} missing refs #{E2E.missing_references(info)}")
  n = info['objects'].to_i
  E2E.check(n.between?(objects - zombies, objects), "#{rel}: #{objects} objects (SHAPE and ROOT not counted)", "got #{n}")
  E2E.check(E2E.broken_lines(info).zero?, "#{rel}: no broken lines", "got #{E2E.broken_lines(info)}")
  if full
    E2E.check(E2E.root_count(info).positive?, "#{rel}: has roots")
  else
    E2E.check(E2E.root_count(info).zero?, "#{rel}: partial dump, no roots", "got #{info['roots'].inspect}")
  end
end

# a partial dump (since:) has dangling references: counted, not fatal
info = E2E.json('info', File.join(fixtures, 'heap-profiler/ruby-3.2-partial-retained.heap'), '--json')
E2E.check(E2E.missing_references(info).positive?, 'partial dump: missing references counted') if info

# a 2-dump diff between the partial dumps works (B - A)
s = E2E.json('stats', File.join(fixtures, 'heap-profiler/ruby-3.2-partial-empty.heap'),
             File.join(fixtures, 'heap-profiler/ruby-3.2-partial-retained.heap'), '--json')
E2E.check(s['groups'].is_a?(Array), '2-dump stats on partial dumps answers') if s

E2E.finish
