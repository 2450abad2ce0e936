# frozen_string_literal: true

# Three real programs captured as a series A, B, C by the capture gem
# (series_program.rb), judged on their manifests' memory figures (version
# 2): where the RSS growth from A to C went. Ratios with wide margins, from
# figures measured five runs each (tests/memory/README.md).
#   ruby_heap_leak       Ruby objects' bytes grow and are most of the growth
#   arena_fragmentation  RSS grows while the objects do not; malloc's free
#                        but held bytes are the growth; under MALLOC_ARENA_MAX=2
#                        the same program grows visibly less
#   zlib_streams         malloc in use grows far beyond the objects' bytes
# With heapleak, `heapleak explain A B C --json`'s `memory` (the accounting
# every surface shows) must give the program's verdict: a leak whose rows
# add up to most of the Ruby objects' growth, fragmentation, native memory
# naming the row that holds the Zlib streams. Its text block is printed.
# usage: ruby tests/memory/memory_series_test.rb PROGRAM [HEAPLEAK]
require "json"
require "rbconfig"
require "tmpdir"
require "fileutils"

PROGRAM = ARGV.fetch(0)
HEAPLEAK = ARGV[1] # build/.../heapleak: explain's accounting checked too
MiB = 1024.0 * 1024

def fail!(message)
  warn "FAIL: #{PROGRAM}: #{message}"
  exit 1
end

def check(condition, message)
  fail!(message) unless condition
  puts "ok: #{message}"
end

# The program's series in a fresh folder, MALLOC_ARENA_MAX as given (nil:
# glibc's default): the manifests of A and C, and explain's answer on the
# series (its JSON; nil without heapleak).
def capture(env = {})
  dir = Dir.mktmpdir("heapleak-memory")
  File.chmod(0o700, dir)
  out = File.join(dir, "series")
  env = { "MALLOC_ARENA_MAX" => nil, "HEAPLEAK_CAPTURE_DIR" => nil }.merge(env)
  ok = system(env, RbConfig.ruby, File.join(__dir__, "series_program.rb"), PROGRAM, out)
  fail!("series_program.rb failed") unless ok
  manifests = %w[A C].map { |name| JSON.parse(File.read(File.join(out, "#{name}.manifest.json"))) }
  [manifests, HEAPLEAK && explain(out)]
ensure
  FileUtils.rm_rf(dir) if dir
end

# explain --json on the series, and its text's memory block printed (the
# lines before the leak rows): what a user reads.
def explain(out)
  dumps = %w[A B C].map { |name| File.join(out, "#{name}.json.gz") }
  env = { "HEAPLEAK_NO_CACHE" => "1" }
  text = IO.popen(env, [HEAPLEAK, "explain", *dumps, "--json"], &:read)
  fail!("heapleak explain --json failed") unless $?.success?
  block = IO.popen(env, [HEAPLEAK, "explain", *dumps], &:read)
  fail!("heapleak explain failed") unless $?.success?
  puts block.split("\n\n").first
  JSON.parse(text)
end

# Growth from A to C of the figures the checks read, in bytes (slots: count).
def growth(manifests)
  a, c = manifests.map { |m| m.fetch("memory") }
  fail!("no malloc figures (allocator not read)") unless a["malloc"] && c["malloc"]
  fail!("no memsize_of_all (asked for)") unless a["memsize_of_all"] && c["memsize_of_all"]
  delta = ->(*path) { c.dig(*path) - a.dig(*path) }
  { rss: delta["rss", "rss"], rss_a: a["rss"]["rss"], rss_c: c["rss"]["rss"], file: delta["rss", "file"],
    objects: delta["memsize_of_all", "bytes"], slots: delta["ruby_heap", "heap_live_slots"],
    free_slots: delta["ruby_heap", "free_slot_bytes"], in_use: delta["malloc", "in_use"],
    free_held: delta["malloc", "free_held"], allocator: c["malloc"]["allocator"],
    seconds: [a["seconds"], c["seconds"]].max }
end

def show(label, g)
  mb = ->(bytes) { format("%+.1f MiB", bytes / MiB) }
  puts format("%s: RSS %.1f -> %.1f MiB (%s, A to C): file-backed %s, Ruby objects %s (%+d slots), " \
              "free heap slots %s, malloc in use %s, malloc free but held %s (%s); figures read in %.1f ms",
              label, g[:rss_a] / MiB, g[:rss_c] / MiB, mb[g[:rss]], mb[g[:file]], mb[g[:objects]], g[:slots],
              mb[g[:free_slots]], mb[g[:in_use]], mb[g[:free_held]], g[:allocator], g[:seconds] * 1000)
end

# explain's verdict on the series (its `memory`), and what the program's
# verdict must show beside it: the leak rows' share of the Ruby objects'
# growth, the row holding the Zlib streams.
def verdict(answer, expected)
  return unless answer

  memory = answer.fetch("memory")
  check(memory["verdict"] == expected, "explain's accounting says #{expected} (#{memory['verdict']})")
  case expected
  when "rubyHeap"
    rows = memory.fetch("leakRows")
    # The rows are objects new from A to B: a part of that span's growth.
    check(rows["bytes"] > 0.6 * rows["rubyObjects"],
          "the leak rows add up to most of the Ruby objects' growth from A to B " \
          "(#{(rows['bytes'] / MiB).round(1)} of #{(rows['rubyObjects'] / MiB).round(1)} MiB)")
  when "nativeMemory"
    held = memory.fetch("nativeRows").first
    check(held && held["class"] == "Zlib::Deflate" && held["classObjects"] >= 100,
          "the native rows start with the one holding the Zlib::Deflate streams (#{held.inspect})")
    row = answer.fetch("leaks")[held["rank"] - 1]
    check(row["key"] == held["key"] && row.dig("native", "class") == "Zlib::Deflate",
          "that row is explain's row #{held['rank']}, #{row['key']}, its native member naming them")
    check(memory["verdictText"].include?("row #{held['rank']} (#{held['key']}: ") &&
          memory["verdictText"].include?("Zlib::Deflate)"),
          "the verdict names that row: #{memory['verdictText']}")
  end
end

manifests, answer = capture
g = growth(manifests)
show(PROGRAM, g)
verdict(answer, { "ruby_heap_leak" => "rubyHeap", "arena_fragmentation" => "fragmentation",
                      "zlib_streams" => "nativeMemory" }.fetch(PROGRAM, "?"))
case PROGRAM
when "ruby_heap_leak"
  check(g[:rss] > 50 * MiB, "RSS grows by over 50 MiB (#{(g[:rss] / MiB).round(1)})")
  check(g[:slots] > 900_000, "over 900,000 more live slots (#{g[:slots]})")
  check(g[:objects] > 0.5 * g[:rss], "the Ruby objects' bytes are most of the RSS growth " \
                                      "(#{(100.0 * g[:objects] / g[:rss]).round}%)")
  check(g[:free_held] < 0.1 * g[:rss], "malloc's free-but-held bytes are not (#{(g[:free_held] / MiB).round(1)} MiB)")
when "arena_fragmentation"
  check(g[:rss] > 100 * MiB, "RSS grows by over 100 MiB (#{(g[:rss] / MiB).round(1)})")
  check(g[:slots].abs < 10_000, "the live slots do not (#{g[:slots]})")
  check(g[:objects] < 0.05 * g[:rss], "nor the Ruby objects' bytes (#{(g[:objects] / MiB).round(1)} MiB)")
  check(g[:in_use] < 0.05 * g[:rss], "nor malloc's bytes in use (#{(g[:in_use] / MiB).round(1)} MiB)")
  check(g[:free_held] > 0.7 * g[:rss], "malloc's free-but-held bytes are the growth " \
                                       "(#{(100.0 * g[:free_held] / g[:rss]).round}%)")
  capped_manifests, capped_answer = capture("MALLOC_ARENA_MAX" => "2")
  capped = growth(capped_manifests)
  show("#{PROGRAM} under MALLOC_ARENA_MAX=2", capped)
  verdict(capped_answer, "fragmentation")
  # Measured 0.37-0.57 of the default's growth on 2 cores (16 arenas for
  # 16 threads); more cores give the default more arenas, not fewer.
  check(capped[:rss] < 0.8 * g[:rss] && g[:rss] - capped[:rss] > 50 * MiB,
        "MALLOC_ARENA_MAX=2 grows visibly less: #{(capped[:rss] / MiB).round(1)} MiB against " \
        "#{(g[:rss] / MiB).round(1)} MiB (#{(100.0 * capped[:rss] / g[:rss]).round}%)")
when "zlib_streams"
  check(g[:rss] > 15 * MiB, "RSS grows by over 15 MiB (#{(g[:rss] / MiB).round(1)})")
  check(g[:slots] < 10_000, "by a few objects (#{g[:slots]} slots)")
  check(g[:in_use] > 20 * [g[:objects], 1].max, "malloc in use grows over 20 times the objects' bytes " \
                                                "(#{(g[:in_use] / MiB).round(1)} MiB against #{(g[:objects] / MiB).round(2)} MiB)")
  check(g[:in_use] > 0.8 * g[:rss], "and grows at least as much as RSS: zlib's state is malloc'd, partly never written (#{(100.0 * g[:in_use] / g[:rss]).round}%)")
else
  fail!("no such program")
end
puts "1 passed, 0 failed"
