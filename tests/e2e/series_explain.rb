# frozen_string_literal: true
# series_explain.rb: `explain` over a series of five real Ruby dumps
# (tests/gen/growth_series.rb: a steady leak, a warm-up cache that grew
# once then stopped, and a store that grew in the first and last interval
# only and retains the most). The steady leak must be the first row, grown
# in 4 of 4 intervals, ahead of the bigger store (2 of 4); the warm-up cache
# is not first; the rows are those of `explain D1 D4 D5`; three dumps give
# the answer without any series field.
#
#   ruby series_explain.rb HEAPLEAK GENDIR WORKDIR

require_relative 'helper'

heapleak, gen, work = ARGV
abort('usage: series_explain.rb HEAPLEAK GENDIR WORKDIR') unless work
E2E.heapleak = heapleak
FileUtils.rm_rf(work)
FileUtils.mkdir_p(work)
E2E.sh(RbConfig.ruby, File.join(gen, 'growth_series.rb'), '5', work)
dumps = (1..5).map { |k| File.join(work, "D#{k}.json") }

def row_of(rows, holder_class)
  rows.find { |row| (row['pathNames'] || []).any? { |name| name.start_with?(holder_class) } }
end

series = E2E.json('explain', *dumps, '--json', '--limit', '0')
exit(E2E.finish) unless series
leaks = series.fetch('leaks')
noise = series.fetch('noise')
steady = row_of(leaks, 'AuditTrail')
burst = row_of(leaks, 'BurstStore')
warmup = row_of(leaks + noise, 'TemplateCache')

E2E.check(leaks.first && leaks.first.equal?(steady),
          'the steady leak (AuditTrail::ENTRIES) is the first row',
          "first: #{leaks.first && leaks.first['key']}")
if steady
  counts = steady['growthCounts']
  E2E.check(counts.is_a?(Array) && counts.size == 5 && counts.each_cons(2).all? { |a, b| a && b && b > a },
            'its growthCounts rise in every interval', counts.inspect)
  E2E.check(counts == [100, 400, 700, 1000, 1300], 'by 300 entries an interval, from the 100 before D1',
            counts.inspect)
  E2E.check(steady['grewIntervals'] == 4, 'grew in 4 of 4 intervals', steady['grewIntervals'].inspect)
  E2E.check(steady['growthBytes'].is_a?(Array) && steady['growthBytes'].size == 5 && steady['growthBytes'].all?,
            'growthBytes has the holder\'s bytes in every dump', steady['growthBytes'].inspect)
  E2E.check(steady['growth'] == { 'field' => 'length', 'baseline' => 100, 'target' => 1000, 'later' => 1300 },
            'growth is read in D1, D4 and D5', steady['growth'].inspect)
end
# The store retains more than the steady leak: without the series order it would be first.
E2E.check(burst && steady && burst['retained'] > steady['retained'] && leaks.index(burst) > 0,
          'the bursty store, retaining more, comes after it', burst&.slice('key', 'retained', 'growthCounts').inspect)
E2E.check(burst && burst['grewIntervals'] == 2 && burst['growthCounts'] == [0, 2000, 2000, 2000, 4000],
          'the bursty store grew in 2 of 4 intervals', burst&.fetch('growthCounts').inspect)
E2E.check(warmup && !leaks.first.equal?(warmup), 'the warm-up cache is not the first row',
          warmup&.slice('key', 'reason').inspect)
E2E.check(warmup && warmup['grewIntervals'] == 1 && warmup['growthCounts'] == [0, 3000, 3000, 3000, 3000],
          'the warm-up cache grew in 1 of 4 intervals', warmup&.fetch('growthCounts').inspect)

# The rows are the 3-dump answer of D1, D4, D5; only the order and the series fields differ.
triple = E2E.json('explain', dumps[0], dumps[3], dumps[4], '--json', '--limit', '0')
if triple
  strip = ->(rows) { rows.map { |row| row.except('growthCounts', 'growthBytes', 'grewIntervals') } }
  E2E.check(strip.call(leaks).sort_by { |r| r['signature'] } == triple['leaks'].sort_by { |r| r['signature'] },
            'the leak rows are those of explain D1 D4 D5')
  E2E.check(strip.call(noise) == triple['noise'], 'and so are the noise rows')
  E2E.check(triple['leaks'].first['signature'] == burst&.fetch('signature'),
            'where, by retained bytes alone, the bursty store was first')
  E2E.check(triple['leaks'].none? { |row| row.key?('growthCounts') },
            'three dumps: no series fields')
end

text = E2E.run('explain', *dumps)
E2E.check(text.code.zero? && text.out.include?('length grew in 4 of 4 intervals: 100 -> 400 -> 700 -> 1,000 -> 1,300'),
          'the text says how it grew', text.out[0, 600])
E2E.check(text.out.include?('growth over 5 dumps'), 'the header says over how many dumps', text.out.lines.first)

# The table for DuckDB (docs/fleet.md) carries the count in every dump.
jsonl = E2E.run('explain', *dumps, '--format', 'jsonl')
lines = (jsonl.code.zero? && jsonl.out.lines.map { |line| JSON.parse(line) }) rescue nil
# The series' memory line first (no manifests: not recorded), then the rows.
memory, first = lines && lines.first(2)
E2E.check(memory && memory['kind'] == 'memory' && memory['memory_verdict'] == 'notEnoughFigures' &&
          memory['rss_growth'].nil? && memory['dumps'].size == 5,
          'explain --format jsonl: the memory line of the series first', jsonl.out[0, 400])
E2E.check(first && first['kind'] == 'leak' && first['growth'] == [100, 400, 700, 1000, 1300] &&
          first['dumps'].size == 5 && first['memory_verdict'] == 'notEnoughFigures',
          'explain --format jsonl: the first row has a count per dump', jsonl.out[0, 400])
E2E.finish
