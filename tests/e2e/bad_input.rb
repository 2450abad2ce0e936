# frozen_string_literal: true
# bad_input.rb: end-to-end test of heapleak's errors and exit codes on bad input
# (the table both CLIs share: docs/exit-codes.md)
# (0 ok, 1 no answer, 2 usage, 3 cannot read input, 4 unknown address), and of
# loading a dump with broken lines (NUL bytes, invalid UTF-8, truncated last line).
#
#   ruby bad_input.rb HEAPLEAK FIXTURES_DIR WORKDIR

require_relative 'helper'
require 'zlib'

heapleak, fixtures, work = ARGV
abort('usage: bad_input.rb HEAPLEAK FIXTURES_DIR WORKDIR') unless work
E2E.heapleak = heapleak
FileUtils.mkdir_p(work)
dir = File.join(fixtures, 'rbheap-3dump')
h1, h2, h3 = %w[heap1 heap2 heap3].map { |n| File.join(dir, "#{n}.jsonl.gz") }
leaked = File.readlines(File.join(dir, 'leaked-strings.txt'), chomp: true).grep(/\A0x\h+\z/)

# --- usage
E2E.check(E2E.run.code == 2, 'no arguments -> exit 2')
E2E.check(E2E.run('frobnicate').code == 2, 'unknown command -> exit 2')
E2E.check(E2E.run('stats', h1).code == 2, 'stats with one dump -> exit 2')
E2E.check(E2E.run('--help').code.zero?, '--help -> exit 0')

# --- heapleak fleet: usage, a missing directory, and a series by directory
E2E.check(E2E.run('fleet').code == 2, 'fleet without a directory -> exit 2')
E2E.check(E2E.run('fleet', work, '--out-dir', work).code == 2, 'fleet --out-dir without --print-commands -> exit 2')
r = E2E.run('fleet', File.join(work, 'no-such-dir'))
E2E.check(r.code == 1 && r.err.include?('no-such-dir: not a directory') && r.err.include?('0 series found'),
          'fleet on a missing directory -> exit 1, named', r.err.strip[0, 200])
series = File.join(work, 'fleet', 'rbheap')
FileUtils.mkdir_p(series)
[h1, h2, h3].each_with_index do |path, k|
  FileUtils.cp(path, series)
  File.utime(1_000_000 + k * 600, 1_000_000 + k * 600, File.join(series, File.basename(path)))
end
FileUtils.cp(File.join(dir, 'leaked-strings.txt'), series)
r = E2E.run('fleet', File.join(work, 'fleet'))
rows = r.out.lines.map { |line| JSON.parse(line) }
E2E.check(r.code.zero? && !rows.empty? && rows.all? { |row| row['series'] == series && row['time_source'] == 'mtime' },
          'fleet explains a series without manifests by its directory', r.err.strip[0, 300])
E2E.check(rows.all? { |row| row['dumps'].map { |d| File.basename(d) } == %w[heap1.jsonl.gz heap2.jsonl.gz heap3.jsonl.gz] && row['hours'] == 1200 / 3600.0 },
          'in mtime order, its hours from the mtimes', rows.first.to_s[0, 300])

# --- missing file
missing = File.join(work, 'no-such-dump.json')
r = E2E.run('stats', missing, h2, h3)
E2E.check(r.code == 3, 'stats on a missing file -> exit 3', "got #{r.code}")
E2E.check(r.err.include?(missing) || r.err.include?('no-such-dump.json'), 'the message names the missing file', r.err.strip[0, 200])
r = E2E.run('root', missing, '0x1')
E2E.check(r.code == 3, 'root on a missing file -> exit 3', "got #{r.code}")

# --- not a heap dump
text = File.join(work, 'not-a-dump.txt')
File.write(text, "This is a README, not a heap dump.\nIt has several lines\nof plain text.\n" * 20)
r = E2E.run('stats', text, text, text)
E2E.check(r.code == 15, 'stats on a text file -> exit 15 (notAHeapDump)', "got #{r.code}: #{r.err.strip[0, 200]}")
E2E.check(r.err.include?('not-a-dump.txt'), 'the message names the file', r.err.strip[0, 200])

# --- corrupt gzip (gzip magic, then garbage)
bad_gz = File.join(work, 'corrupt.json.gz')
File.binwrite(bad_gz, "\x1f\x8b\x08\x00".b + Random.new(7).bytes(4096))
r = E2E.run('stats', bad_gz, h2, h3)
E2E.check(r.code == 7, 'stats on a corrupt gzip -> exit 7 (corruptInput)', "got #{r.code}: #{r.err.strip[0, 200]}")

# --- unknown addresses
r = E2E.run('root', h2, '0xdeadbeef')
E2E.check(r.code == 4, 'root with an address absent from the heap -> exit 4', "got #{r.code}")
E2E.check(r.text.include?('0xdeadbeef'), 'the message names the address', r.err.strip[0, 200])
r = E2E.run('path', h2, '0xdeadbeef')
E2E.check(r.code == 4, 'path with an address absent from the heap -> exit 4', "got #{r.code}")
r = E2E.run('redact', h1, File.join(work, 'no-such-dir', 'copy.json.gz'))
E2E.check(r.code == 16, 'redact into a missing folder -> exit 16 (cannot write)', "got #{r.code}: #{r.err.strip[0, 200]}")
r = E2E.run('root', h2, 'not-an-address')
E2E.check(r.code == 10, 'root with a malformed address -> exit 10 (invalid argument)', "got #{r.code}")

# --- broken lines: heap1 with a NUL-byte line, an invalid UTF-8 line and a truncated last line
lines = Zlib::GzipReader.open(h1) { |gz| gz.each_line.to_a }
nul_at = lines.size / 3
utf_at = lines.size / 2
lines.insert(nul_at, %({"address":"0x1234", "type":"STRING", "method":"caf\0\0\0", "file":"x.rb"}\n))
lines.insert(utf_at, %({"address":"0x5678", "type":"STRING", "value":"caf\xC3\x28 \xFF", "memsize":40}\n).b)
last = lines.pop
lines << last[0, last.size / 2] # no newline: the writer was killed mid-line
broken = File.join(work, 'broken.json')
File.binwrite(broken, lines.map(&:b).join)
nul_line = nul_at + 1 # 1-based line numbers
E2E.info("broken.json: #{lines.size} lines; NUL line #{nul_line}, bad UTF-8 line #{utf_at + 1}, truncated line #{lines.size}")

stats = E2E.json('stats', broken, h2, h3, '--json')
if stats
  got = E2E.reported(stats)
  E2E.check(leaked.all? { |x| got[x] }, 'stats on the broken dump still finds the 50 leaked strings')
end

# --- the dumps of one command load at once; what they print still comes in
# the order of the paths. C is a few lines, so it finishes long before A.
tiny = File.join(work, 'tiny-broken.json')
File.binwrite(tiny, lines.first(40).map(&:b).join + %({"address":"0x9abc", "type":"STRING", "value":"caf\xC3\x28"}\n).b)
%w[stats explain].each do |command|
  r = E2E.run(command, broken, h2, tiny)
  warned = r.err.lines.grep(/skipped \d+ broken line/)
  E2E.check(warned.size == 2 && warned[0].include?(broken) && warned[1].include?(tiny),
            "#{command}: A's broken-line warning, then C's, each a whole line", r.err.strip[0, 400])
end
r = E2E.run('stats', missing, h2, text)
E2E.check(r.code == 3 && r.err.include?('no-such-dump.json') && !r.err.include?('not-a-dump.txt'),
          'stats with two bad dumps reports the first path\'s error only', r.err.strip[0, 300])

# `heapleak info --json` (objects, roots, broken lines with line numbers, missing
# references): if this fails with exit 2 the command is not there yet.
info = E2E.json('info', broken, '--json')
if info
  fbl = E2E.first_broken_lines(info)
  E2E.info("info: objects #{info['objects'].inspect}, broken #{E2E.broken_lines(info)}, first broken lines #{fbl.inspect}")
  E2E.check(E2E.broken_lines(info) >= 2, 'info counts >= 2 broken lines', "got #{E2E.broken_lines(info)}")
  E2E.check(fbl.include?(nul_line), "info lists line #{nul_line} (NUL bytes) among the broken lines")
  E2E.check(fbl.include?(lines.size), "info lists line #{lines.size} (truncated) among the broken lines")
  E2E.check(info['objects'].to_i > 17_000, 'info still loads the other objects', "got #{info['objects'].inspect}")
else
  E2E.info('(info check: `heapleak info FILE --json` is in the CLI contract; the lead adds it)')
end

# --- a run that cannot fit the memory left: refused before it starts (exit 9,
# overBudget), with the need, the headroom and the ways out; the cache (whose
# images the kernel can page out) and a large enough --max-memory run it.
# h2 holds ~17,600 objects: a full load needs at least 24 MiB + 60 bytes each.
%w[info explain].each do |command|
  args = command == 'info' ? [h2] : [h1, h2, h3]
  r = E2E.run(command, *args, '--no-cache', '--max-memory', '20M')
  E2E.check(r.code == 9 && r.out.empty? && r.err.include?('need at least') && r.err.include?('20 MiB is left') &&
            r.err.include?('Run it with the cache') && r.err.include?('--max-memory'),
            "#{command} --no-cache that cannot fit -> exit 9 before loading, with the way out", r.err.strip[0, 400])
  r = E2E.run(command, *args, '--no-cache', '--max-memory=1G')
  E2E.check(r.code.zero?, "#{command} with --max-memory 1G runs", r.err.strip[0, 300])
end
r = E2E.run_with_env({ 'HEAPLEAK_NO_CACHE' => nil }, 'explain', h1, h2, h3, '--max-memory', '20M',
                     '--cache-dir', File.join(work, 'fit-cache'))
E2E.check(r.code.zero?, 'with the cache, the same run is not refused', r.err.strip[0, 300])
r = E2E.run('check', h1, h2, h3, '--no-cache', '--max-memory', '20M')
E2E.check(r.code == 6 && r.err.include?('need at least'), 'check that cannot fit gives no verdict (exit 6), saying why',
          "got #{r.code}: #{r.err.strip[0, 300]}")
r = E2E.run('info', h2, '--max-memory', 'lots')
E2E.check(r.code == 2, 'a --max-memory that is not a size -> exit 2', r.err.strip[0, 200])

E2E.finish
