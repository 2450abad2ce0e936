# frozen_string_literal: true

# heapleak reads the capture manifests: a series with a GC.compact between
# two dumps is refused by `heapleak check` (exit 6, "compact_count") and
# warned by explain; dumps of two processes are refused although their heap
# pages would pass for one process; a clean series is judged.
# usage: ruby tests/capture/manifest_series_e2e.rb HEAPLEAK
require_relative "support"
$LOAD_PATH.unshift(CaptureE2E::GEM_LIB)
require "heapleak/capture"
require "heapleak/capture/control_client"

include CaptureE2E # rubocop:disable Style/MixinUsage
heapleak = ARGV.fetch(0)
dir = scratch
KEPT = []
Heapleak::Capture.enable!(socket_dir: File.join(dir, "sockets"), min_gap: 0)
client = Heapleak::Capture::ControlClient.new(Heapleak::Capture.server.path)

def series(client, out, compact: false)
  request = Thread.new { client.request("method" => "series", "names" => %w[A B C], "interval" => 0.4, "out" => out) }
  # Grows until the series is done: A < B < C whatever the dumps take. (300
  # appends could end before C; the gem's own Array used to hide that by
  # being a growing row itself.)
  worker = Thread.new do
    while request.alive?
      KEPT << "kept #{rand}"
      sleep 0.002
    end
  end
  if compact
    sleep 0.05 until File.exist?(File.join(out, "A.manifest.json"))
    GC.compact
  end
  answer = request.value
  worker.join
  fail!("series: #{answer['error']}") unless answer["ok"]
  %w[A B C].map { |n| File.join(out, "#{n}.json.gz") }
end

clean = series(client, File.join(dir, "clean"))
_, err, status = Open3.capture3(heapleak, "check", *clean)
check(status.exitstatus != 6, "a clean series is judged (exit #{status.exitstatus}) #{err.lines.first}")

# The leak table names the process and the dump times from the manifests
# the gem wrote (docs/fleet.md), and fleet finds the series by them.
out, err, status = Open3.capture3(heapleak, "explain", "--format", "jsonl", *clean)
rows = out.lines.map { |line| JSON.parse(line) }
manifests = %w[A B C].map { |n| JSON.parse(File.read(File.join(dir, "clean", "#{n}.manifest.json"))) }
check(status.success? && !rows.empty?, "explain --format jsonl gives #{rows.size} rows #{err.lines.first}")
check(rows.all? { |r| r["pid"] == Process.pid && r["host"] == Socket.gethostname }, "each row names this process (pid, host)")
check(rows.all? { |r| r["process_started_at"] == manifests[0]["process"]["started_at"] }, "and its start time")
check(rows.all? { |r| r["time_source"] == "manifest" && r["dumped_at"] == manifests.map { |m| m["capture"]["started_at"] } },
      "dump times are the manifests' capture.started_at")
check(rows.any? { |r| r["growth"].size == 3 && r["growth"].each_cons(2).all? { |a, b| a < b } && r["growth_per_hour"].positive? },
      "a row's holder grows dump after dump, per hour of the manifests' times: #{rows.map { |r| [r['key'], r['growth']] }}")
out, err, status = Open3.capture3(heapleak, "fleet", File.join(dir, "clean"))
series = out.lines.map { |line| JSON.parse(line)["series"] }.uniq
check(status.success? && series == ["#{Socket.gethostname}/#{Process.pid}/#{manifests[0]['process']['started_at']}"],
      "fleet finds the one series by its manifests: #{series} #{err}")

if GC.respond_to?(:compact)
  compacted = series(client, File.join(dir, "compacted"), compact: true)
  out, err, status = Open3.capture3(heapleak, "check", *compacted)
  check(status.exitstatus == 6 && (out + err).include?("compact_count"), "check refuses a series compacted between A and B (exit #{status.exitstatus})")
  _, err, = Open3.capture3(heapleak, "explain", *compacted)
  check(err.include?("compact_count 0 -> 1"), "explain warns of it")
end

# B's manifest from another process: same pages, another pid.
other = File.join(dir, "other")
FileUtils.cp_r(File.join(dir, "clean"), other)
manifest = JSON.parse(File.read(File.join(other, "B.manifest.json")))
manifest["process"]["pid"] += 1
File.write(File.join(other, "B.manifest.json"), JSON.generate(manifest))
out, err, status = Open3.capture3(heapleak, "check", *%w[A B C].map { |n| File.join(other, "#{n}.json.gz") })
check(status.exitstatus == 6 && (out + err).include?("not from one process"), "check refuses dumps the manifests place in two processes")
puts "1 passed, 0 failed"
