# frozen_string_literal: true
# scenario.rb: end-to-end test on a Ruby-generated 3-dump leak with ground truth.
# Generates SCENARIO (size small) with tests/gen/leakgen.rb into WORKDIR, then checks
# heapleak's stats (recall, extras), root (retainer, distance), path, --by groupings
# and gzip input against truth.json.
#
#   ruby scenario.rb HEAPLEAK GEN_DIR WORKDIR SCENARIO [TRACE]
#   TRACE: 1 or 0 forces allocation tracing; absent = the scenario's default

require_relative 'helper'

heapleak, gen, work, scenario, trace = ARGV
abort('usage: scenario.rb HEAPLEAK GEN_DIR WORKDIR SCENARIO [TRACE]') unless scenario
E2E.heapleak = heapleak
FileUtils.rm_rf(work)
FileUtils.mkdir_p(work)

env = { 'TRACE' => trace } # nil unsets TRACE: the scenario's default applies
E2E.sh(env, 'ruby', File.join(gen, 'leakgen.rb'), scenario, 'small', work)
a, b, c = %w[A B C].map { |n| File.join(work, "#{n}.json") }
truth = JSON.parse(File.read(File.join(work, 'truth.json')))
traced = truth['trace_object_allocations']
leak = truth['leak']['objects'].map { |o| o['address'] }
benign = truth['benign_new'].map { |o| o['address'] }
E2E.info("#{scenario}: #{leak.size} leaked objects, traced=#{traced}, by_type #{truth['leak']['by_type']}")

# --- stats: recall and extras
stats = E2E.json('stats', a, b, c, '--json')
if stats
  got = E2E.reported(stats)
  hit = leak.count { |x| got[x] }
  extras = got.keys - leak - benign
  E2E.info("recall #{hit}/#{leak.size} = #{E2E.pct(hit, leak.size)}; reported #{got.size}, " \
           "benign pool #{benign.count { |x| got[x] }}/#{benign.size}, extras #{extras.size} " \
           "(#{E2E.pct(extras.size, leak.size)} of the truth); precision #{E2E.pct(hit, got.size)}")
  if traced
    E2E.check(hit == leak.size, 'recall is 100% (traced dumps)', "missed #{leak.reject { |x| got[x] }.first(5).join(' ')}")
  else
    E2E.check(hit >= 0.97 * leak.size, 'recall >= 97% (untraced dumps)', E2E.pct(hit, leak.size))
  end
  E2E.check(extras.size <= 0.03 * leak.size, 'extras beyond truth + benign_new <= 3% of the truth', "#{extras.size} extras")
  by_key = stats['groups'].to_h { |g| [g['key'], g['count']] }
  truth['leak']['by_type'].each do |k, n|
    reported = by_key[k] || by_key.select { |gk, _| gk.start_with?("#{k}:") }.values.sum
    E2E.info("  #{k}: truth #{n}, heapleak #{reported}")
  end
  E2E.check(stats['groups'].all? { |g| g['count'] == g['samples'].size }, 'every group lists all its addresses')

  # --- other groupings report the same objects
  %w[site generation].each do |by|
    s = E2E.json('stats', a, b, c, '--by', by, '--json') or next
    E2E.check(E2E.reported(s).keys.sort == got.keys.sort, "stats --by #{by} reports the same objects")
    if by == 'site' && traced
      here = s['groups'].find { |g| g['key'].to_s.include?("scenarios/#{scenario}.rb") }
      E2E.check(here, "--by site has a group at scenarios/#{scenario}.rb", s['groups'].first(3).map { |g| g['key'] }.inspect)
    end
  end

  # --- gzip input gives the same answer
  E2E.sh('gzip', '-kf', b)
  gz = E2E.json('stats', a, "#{b}.gz", c, '--json')
  if gz
    E2E.check(gz['groups'] == stats['groups'] && gz['total'] == stats['total'], 'a gzipped B gives the same stats')
  end
end

# --- root: the retainer truth names, at its distance
q = truth['root']
root = E2E.json('root', b, *q['samples'], '--json')
if root
  want = q.dig('retainer', 'address')
  E2E.info("root of #{q['samples'].size} #{q['sample_kind']}: #{root['retainer'].inspect} at #{root['distance'].inspect}; " \
           "truth #{want} (#{q.dig('retainer', 'what')}) at #{q['distance']}")
  E2E.check(root['retainer'] == want, 'root names the truth retainer', "got #{root['retainer'].inspect}, want #{want}")
  E2E.check(root['distance'] == q['distance'], "root distance is #{q['distance']}", "got #{root['distance'].inspect}")
  E2E.check(q['samples'].all? { |s| root['nodes'].any? { |n| n['address'] == s && n['sample'] } }, 'nodes mark every sample')
end

# --- path from a GC root to the retainer
if (ret = q.dig('retainer', 'address'))
  path = E2E.json('path', b, ret, '--json')
  if path
    E2E.info("path from #{path['root'].inspect}: #{(path['path'] || []).join(' -> ')}")
    E2E.check(path['path'].is_a?(Array) && path['path'].last == ret, 'path ends at the retainer')
    E2E.check(path['root'].is_a?(String) && !path['root'].empty?, 'path names a root category')
    # informational: a conservative stack scan (machine_context) may reach the retainer directly
    owner = q['owner_chain']&.first
    E2E.info("owner #{owner['address']} (#{owner['what']}) on the path: #{path['path'].include?(owner['address'])}") if owner
  end
end

# --- owner: the dominator of the samples is the truth retainer; explain ranks
# the leak's groups under that owner, with a root path ending at it
ret = q.dig('retainer', 'address')
own = E2E.json('owner', b, *q['samples'], '--json')
if own
  E2E.check(own.dig('owner', 'address') == ret, 'owner of the samples is the truth retainer',
            "got #{own.dig('owner', 'address').inspect}, want #{ret}")
  E2E.check(own['path'].is_a?(Array) && own['path'].last == ret, 'owner path ends at the owner')
  (q['owner_chain'] || []).each do |above|
    E2E.check(own['path'].include?(above['address']), "owner path passes #{above['what']}")
  end
end
exp = E2E.json('explain', a, b, c, '--json')
if exp
  leaks = exp['leaks'] || []
  E2E.check(!leaks.empty?, 'explain lists leak groups')
  E2E.check(leaks.each_cons(2).all? { |x, y| x['retained'] >= y['retained'] }, 'explain is ranked by retained bytes')
  top = leaks.first || {}
  E2E.info("explain #1: #{top['key']} x#{top['count']} retaining #{top['retained']} held by #{top.dig('holder', 'address')}")
  # One row per leak (issue 12): the first row's holder is the truth retainer, which grows.
  E2E.check(top.dig('holder', 'address') == ret, "explain's first row is held by the truth retainer",
            "got #{top.dig('holder', 'address').inspect}")
  E2E.check(top.dig('owners', 0, 'address') == ret, "explain's first row is owned by the truth retainer",
            "got #{top.dig('owners', 0, 'address').inspect}")
  E2E.check(top['path'].is_a?(Array) && top['path'].last == ret, "explain's first path ends at the holder")
  g = top['growth'] || {}
  E2E.check(g['baseline'] && g['target'] && g['later'] && g['baseline'] < g['target'] && g['target'] < g['later'],
            "explain's first row's holder grows A -> B -> C", g.inspect)
  E2E.check(top['count'] >= 0.95 * leak.size, "explain's first row holds >= 95% of the truth",
            "#{top['count']} of #{leak.size}")
  # --by regroups the same leaked objects: the counts add up to the same total
  site = E2E.json('explain', a, b, c, '--by', traced ? 'site' : 'generation', '--limit', '1000', '--json')
  all_class = E2E.json('explain', a, b, c, '--limit', '1000', '--json')
  if site && all_class
    E2E.check(site['groupBy'] == (traced ? 'site' : 'generation'), 'explain --by says how it grouped', site['groupBy'].inspect)
    rows = ->(r) { r['leaks'] + r['noise'] }
    E2E.check(rows.(site).sum { |l| l['count'] } == all_class['total']['count'] &&
              rows.(all_class).sum { |l| l['count'] } == all_class['total']['count'],
              'explain --by covers the same objects, every leaked object in one row',
              "#{rows.(site).sum { |l| l['count'] }} vs #{all_class['total']['count']}")
    if traced
      here = site['leaks'].first || {}
      E2E.check(here.dig('holder', 'address') == ret &&
                here['objects'].any? { |o| o['key'].to_s.include?("scenarios/#{scenario}.rb") },
                "explain --by site: the first row, held by the truth retainer, groups by a site in scenarios/#{scenario}.rb",
                site['leaks'].first(3).map { |l| [l['key'], l.dig('holder', 'address'), l['objects'].map { |o| o['key'] }.first(2)] }.inspect)
    end
  end
end

E2E.finish
