# frozen_string_literal: true
# rbheap_fixture.rb: end-to-end test on the public rbheap 3-dump fixture, whose
# answer is known: 50 leaked STRING "leaked memory", all held in heap2 by the
# ARRAY 0x7f9f030a37d8 (Leaky's @leak), itself held by CLASS Leaky 0x7f9f030a3990.
#
#   ruby rbheap_fixture.rb HEAPLEAK FIXTURES_DIR WORKDIR

require_relative 'helper'

heapleak, fixtures, work = ARGV
abort('usage: rbheap_fixture.rb HEAPLEAK FIXTURES_DIR WORKDIR') unless work
E2E.heapleak = heapleak
FileUtils.mkdir_p(work)
dir = File.join(fixtures, 'rbheap-3dump')
h1, h2, h3 = %w[heap1 heap2 heap3].map { |n| File.join(dir, "#{n}.jsonl.gz") }
leaked = File.readlines(File.join(dir, 'leaked-strings.txt'), chomp: true).grep(/\A0x\h+\z/)
ARRAY = '0x7f9f030a37d8'
LEAKY = '0x7f9f030a3990'
abort("fixture expectation list has #{leaked.size} addresses, want 50") unless leaked.size == 50

# --- stats, JSON: every leaked string, few others
stats = E2E.json('stats', h1, h2, h3, '--json')
if stats
  got = E2E.reported(stats)
  missing = leaked.reject { |a| got[a] }
  E2E.check(missing.empty?, "stats --json reports all 50 leaked strings", "missing #{missing.size}: #{missing.first(5).join(' ')}")
  others = got.keys - leaked
  E2E.info("other objects reported: #{others.size} (#{others.first(10).join(' ')})")
  E2E.check(others.size < 10, 'stats --json reports fewer than 10 other objects', "got #{others.size}")
  str = stats['groups'].find { |g| g['key'] == 'STRING' }
  E2E.check(str && str['count'] >= 50 && str['count'] == str['samples'].size,
            'STRING group count >= 50 and lists every address', str && "count #{str['count']}, samples #{str['samples'].size}")
  E2E.check(stats['groups'].each_cons(2).all? { |x, y| x['count'] >= y['count'] }, 'groups sorted by count')
  total = stats['groups'].sum { |g| g['count'] }
  E2E.check(stats.dig('total', 'count') == total, 'total.count is the sum of the groups', "total #{stats['total'].inspect}, sum #{total}")
  E2E.check(stats['compacted'] == false, 'not flagged as compacted')
end

# --- stats --format seed: the seed's headline and "KEY: count" lines (scripts parse them)
text = E2E.run('stats', h1, h2, h3, '--format', 'seed')
E2E.check(text.code.zero?, 'stats --format seed exits 0', "got #{text.code}: #{text.err[0, 300]}")
E2E.check(text.out.include?('Potentially leaked objects:'), 'seed text has the headline "Potentially leaked objects:"')
E2E.check(text.out =~ /^STRING: 53 \(2176 bytes\)$/, 'seed text has the "STRING: 53 (2176 bytes)" line')

# --- stats, text: the table both CLIs print (results/text)
table = E2E.run('stats', h1, h2, h3)
E2E.check(table.code.zero?, 'stats (table) exits 0', "got #{table.code}: #{table.err[0, 300]}")
# The dumps by their file names, as the daemon's `files` names them.
E2E.check(table.out.start_with?("53 objects (2.1 KiB) new in #{File.basename(h2)} since #{File.basename(h1)}, " \
                                "still alive in #{File.basename(h3)}"),
          'the table names the dumps and sizes by the one rule', table.out[0, 300])
E2E.check(table.out =~ /^String +53 +2\.1 KiB +0x/, 'the table has a "String 53 2.1 KiB 0x..." row (Ruby class names)', table.out)

# --- stats -o FILE
out_file = File.join(work, 'rbheap-stats.json')
File.delete(out_file) if File.exist?(out_file)
r = E2E.run('stats', h1, h2, h3, '--json', '-o', out_file)
E2E.check(r.code.zero? && File.exist?(out_file) && JSON.parse(File.read(out_file)) == stats,
          'stats --json -o FILE writes the same document to FILE', "exit #{r.code}")

# --- root: three leaked strings -> the ARRAY at distance 1
samples = [leaked[0], leaked[24], leaked[49]]
root = E2E.json('root', h2, *samples, '--json')
if root
  E2E.check(root['retainer'] == ARRAY, "root names the ARRAY #{ARRAY}", "got #{root['retainer'].inspect}")
  E2E.check(root['distance'] == 1, 'root distance is 1', "got #{root['distance'].inspect}")
  dot = root['dot'].to_s
  E2E.check(dot.include?('rankdir=RL'), 'dot has rankdir=RL')
  blue = samples.all? { |s| dot.each_line.any? { |l| l.include?(s) && l.include?('blue') } }
  E2E.check(blue, 'dot draws the samples in blue')
  nodes = (root['nodes'] || []).to_h { |n| [n['address'], n] }
  E2E.check(samples.all? { |s| nodes.dig(s, 'sample') == true }, 'nodes mark the samples sample:true')
  E2E.check(nodes.dig(ARRAY, 'type') == 'ARRAY', 'nodes include the ARRAY retainer')
  E2E.check((root['edges'] || []).any? { |e| e['to'] == ARRAY || e['from'] == ARRAY }, 'edges touch the retainer')
  E2E.check(root['unknown'] == [], 'no unknown addresses', root['unknown'].inspect)
end

# --- root, dot on stdout
r = E2E.run('root', h2, *samples)
body = r.out.lines.reject { |l| l.start_with?('#') }.join # dot ignores '#' lines
E2E.check(r.code.zero? && body.lstrip.start_with?('digraph') && body.include?('rankdir=RL'),
          'root (no --json) prints a digraph with rankdir=RL', "exit #{r.code}: #{r.out[0, 120].inspect}")
if r.code.zero? && system('command -v dot >/dev/null 2>&1')
  _, err, st = Open3.capture3('dot', '-Tsvg', stdin_data: r.out)
  E2E.check(st.success?, 'Graphviz dot accepts the output', err[0, 200])
end

# --- path: from a named root to a leaked string, through the ARRAY
path = E2E.json('path', h2, leaked[0], '--json')
if path
  pa = path['path'] || []
  E2E.info("path from #{path['root'].inspect}: #{pa.join(' -> ')}")
  E2E.check(pa.last == leaked[0], 'path ends at the leaked string')
  E2E.check(pa.last(3) == [LEAKY, ARRAY, leaked[0]], 'path ends CLASS Leaky -> ARRAY -> string (nothing else holds them)')
  E2E.check(path['root'].is_a?(String) && !path['root'].empty?, 'path names a root category')
end

# --- owner and explain: the ARRAY owns the leaked strings, Leaky above it
own = E2E.json('owner', h2, *samples, '--json')
if own
  E2E.check(own.dig('owner', 'address') == ARRAY, "owner is the ARRAY #{ARRAY}", "got #{own.dig('owner', 'address').inspect}")
  E2E.check(own['path'].last(2) == [LEAKY, ARRAY], 'owner path ends CLASS Leaky -> ARRAY')
end
exp = E2E.json('explain', h1, h2, h3, '--json')
if exp
  # One row per leak (issue 12): the first row is held by the ARRAY, which grew 50 -> 100 -> 150.
  first = (exp['leaks'] || []).first || {}
  E2E.check(first.dig('holder', 'address') == ARRAY && first['count'] == 50,
            'explain: the first row is the 50 strings held by the ARRAY', first.inspect[0, 300])
  E2E.check(first['owners'].to_a.any? { |o| o['address'] == ARRAY && o['objects'] >= 50 },
            'explain: the ARRAY owns the 50 leaked strings', first['owners'].inspect[0, 300])
  E2E.check(first['growth'] == { 'field' => 'length', 'baseline' => 50, 'target' => 100, 'later' => 150 },
            'explain: the holder grows 50 -> 100 -> 150', first['growth'].inspect)
end

E2E.finish
