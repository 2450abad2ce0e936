# frozen_string_literal: true
# synthetic.rb: end-to-end test of heapleak against bench/'s synthetic dump
# writer (heapleak-synth): its dumps have a known leak (the iteration-2 items,
# held by LeakHolder's Hash), so the test checks heapleak finds exactly that,
# and that the writer's output is what benchmarks believe it is (a few MB here).
#
#   ruby synthetic.rb HEAPLEAK HEAPLEAK_SYNTH WORKDIR

require_relative 'helper'

heapleak, synth, work = ARGV
abort('usage: synthetic.rb HEAPLEAK HEAPLEAK_SYNTH WORKDIR') unless work
E2E.heapleak = heapleak

[['untraced', []], ['traced', ['--traced']]].each do |label, flags|
  dir = File.join(work, label)
  FileUtils.rm_rf(dir)
  FileUtils.mkdir_p(dir)
  E2E.sh(synth, '--out', dir, '--objects', '40000', '--seed', '7', '--leak-fraction', '0.02', *flags)
  a, b, c = %w[A B C].map { |n| File.join(dir, "#{n}.json") }
  truth = JSON.parse(File.read(File.join(dir, 'truth.json')))
  leaked = truth['leaked']['addresses']
  E2E.info("#{label}: #{leaked.size} leaked objects, holder #{truth['holder']['address']}")
  E2E.check(leaked.size == truth['leaked']['count'] && leaked.size.positive?,
            "#{label}: truth lists #{truth['leaked']['count']} leaked addresses")

  # The writer's dump is what it says: every line an object or a ROOT, the
  # count it reports, no broken lines, no reference to an absent object.
  info = E2E.json('info', b, '--json')
  if info
    E2E.check(Integer(info['objects']) == truth['objects']['B'],
              "#{label}: info B counts the writer's #{truth['objects']['B']} objects", "got #{info['objects']}")
    E2E.check(E2E.broken_lines(info).zero?, "#{label}: no broken lines")
    E2E.check(E2E.missing_references(info).zero?, "#{label}: every reference resolves")
    E2E.check(info['traced'] == (label == 'traced'), "#{label}: allocation tracing as written",
              "traced=#{info['traced'].inspect}")
  end

  # HEAPLEAK_PROFILE=1: the load's steps on stderr, the answer unchanged.
  plain = E2E.run('info', b)
  out, err, st = Open3.capture3({ 'HEAPLEAK_PROFILE' => '1' }, heapleak, 'info', b)
  steps = ['parse (simdjson)', 'columns, intern', 'wait for the reader', 'sort', 'permute', 'edges']
  E2E.check(st.success? && steps.all? { |x| err.include?(x) } && err.include?('page faults'),
            "#{label}: HEAPLEAK_PROFILE prints the load's steps", err[0, 400])
  strip = ->(text) { text.sub(/load time:.*/, '') }
  E2E.check(strip.call(out) == strip.call(plain.out), "#{label}: and the answer is the same")

  # stats: recall 1.0, and nothing else is new in B and alive in C.
  stats = E2E.json('stats', a, b, c, '--json')
  if stats
    got = E2E.reported(stats)
    found = leaked.count { |x| got[x] }
    E2E.check(found == leaked.size, "#{label}: stats recall 1.0 (#{found}/#{leaked.size})")
    E2E.check(got.size == leaked.size, "#{label}: stats reports only the leak", "#{got.size} addresses")
  end

  # explain: the first leak row is LeakHolder's Hash holding every leaked object.
  explain = E2E.json('explain', a, b, c, '--json')
  row = explain && explain['leaks']&.first
  if E2E.check(row, "#{label}: explain has a leak row")
    E2E.check(row.dig('holder', 'address') == truth['holder']['address'],
              "#{label}: explain's first row is held by #{truth['holder']['address']}",
              "got #{row['holder'].inspect}")
    E2E.check(row.dig('reach', 'name') == truth['holder']['reach'],
              "#{label}: reached through class #{truth['holder']['reach']}", "got #{row['reach'].inspect}")
    E2E.check(row['count'] == leaked.size, "#{label}: the row has every leaked object (recall 1.0)",
              "count #{row['count']} of #{leaked.size}")
    E2E.check((row['samples'] || []).all? { |s| leaked.include?(s) }, "#{label}: its samples are leaked objects")
    g = row['growth'] || {}
    E2E.check(g['target'] == 2 * g['baseline'] && g['later'] == 3 * g['baseline'],
              "#{label}: the holder grows L -> 2L -> 3L", g.inspect)
  end

  # root: the nearest common retainer of the truth's sample Sessions is the holder.
  samples = truth.dig('root', 'samples') || []
  E2E.check(samples.size == 4 && samples.all? { |x| leaked.include?(x) }, "#{label}: truth names 4 leaked samples")
  root = E2E.json('root', b, *samples, '--json')
  if root
    got = root['retainer']
    E2E.check(got == truth['holder']['address'], "#{label}: root finds the holder", "got #{root.to_s[0, 300]}")
  end
end

# --leak NAME, repeated: a leak of its own per name (its holder class and
# Hash), each found as its own row with its own signature and holder.
dir = File.join(work, 'two-leaks')
FileUtils.rm_rf(dir)
E2E.sh(synth, '--out', dir, '--objects', '20000', '--seed', '3', '--leak', 'CacheX', '--leak', 'CacheY')
truth = JSON.parse(File.read(File.join(dir, 'truth.json')))
E2E.check(truth['leaks'].map { |l| l['holderClass'] } == %w[CacheX CacheY], 'truth lists both leaks', truth['leaks'].inspect)
explain = E2E.json('explain', *%w[A B C].map { |n| File.join(dir, "#{n}.json") }, '--json')
if explain
  rows = explain['leaks'].select { |row| %w[CacheX CacheY].include?(row.dig('reach', 'name')) }
  E2E.check(rows.map { |row| row.dig('reach', 'name') }.sort == %w[CacheX CacheY] && rows.map { |row| row['signature'] }.uniq.size == 2,
            'explain finds each leak as its own row and signature', explain['leaks'].map { |r| r['key'] }.inspect)
  truth['leaks'].each do |leak|
    row = rows.find { |r| r.dig('reach', 'name') == leak['holderClass'] }
    E2E.check(row && row['holder']['address'] == leak['holder'] && row['count'] == leak['count'],
              "#{leak['holderClass']}: its holder and its #{leak['count']} objects", row.to_s[0, 200])
  end
end

E2E.finish
