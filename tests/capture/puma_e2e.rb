# frozen_string_literal: true

# Puma in cluster mode (2 workers) serves a leaky Rack app under a steady
# request load; heapleak-capture takes a traced series of one worker in fork
# mode, then one inline dump; `heapleak explain` on the series must put the
# leak first. Prints request latency during each mode's dump.
# usage: ruby tests/capture/puma_e2e.rb HEAPLEAK
require_relative "support"
require "net/http"

include CaptureE2E # rubocop:disable Style/MixinUsage
heapleak = ARGV.fetch(0)
dir = scratch
sockets = File.join(dir, "sockets")
out = File.join(dir, "series")
port = free_port
pidfile = File.join(dir, "puma.pid")
env = {
  "RUBYLIB" => GEM_LIB, "HEAPLEAK_CAPTURE_DIR" => sockets, "HEAPLEAK_CAPTURE_MIN_GAP" => "0",
  "HEAPLEAK_CAPTURE_INLINE" => "1", "SHOP_PORT" => port.to_s, "SHOP_PIDFILE" => pidfile
}
log = File.join(dir, "puma.log")
puma = Process.spawn(env, "puma", "-C", File.join(__dir__, "apps/puma.rb"), out: log, err: log, pgroup: true)
samples = Queue.new
load = nil
begin
  wait_until("puma's pidfile", 60) { File.exist?(pidfile) && File.size?(pidfile) }
  master = File.read(pidfile).to_i
  workers = wait_until("two worker sockets", 60) do
    found = Dir.glob(File.join(sockets, "heapleak-*.sock")).map { |p| p[/(\d+)\.sock\z/, 1].to_i } - [master]
    found.size >= 2 && found
  end
  check(File.stat(File.join(sockets, "heapleak-#{workers[0]}.sock")).mode & 0o777 == 0o600, "worker sockets are 0600")
  listed, = capture("list", "--dir", sockets)
  roles = listed.lines.to_h { |l| f = l.chomp.split("\t"); [f[0].to_i, f[2]] }
  check(roles[master] == "puma master" && workers.all? { |w| roles[w] == "puma worker" },
        "list marks the Puma master and its workers: #{roles}")
  _, stderr, code = capture("series", master.to_s, "--dir", sockets, "--out", File.join(dir, "master"), "--every", "10")
  check(code == 1 && stderr.include?("is the Puma master"), "a series --every of the master is refused (exit #{code})")
  wait_until("puma answers", 30) do
    Net::HTTP.get_response(URI("http://127.0.0.1:#{port}/")).is_a?(Net::HTTPOK)
  rescue SystemCallError
    false
  end

  stop_load = false
  # A connection per request: a kept-alive one stays on one worker, and the
  # worker captured must see requests.
  load = Thread.new do
    n = 0
    until stop_load
      t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      Net::HTTP.start("127.0.0.1", port) { |http| http.get(n.even? ? "/order" : "/product") }
      samples << [t0, Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0]
      n += 1
    end
  end

  # The worker that serves: the one whose request counter moves.
  worker = wait_until("a worker counting requests", 60) do
    ticks = workers.to_h do |pid|
      status_text, = capture("status", pid.to_s, "--dir", sockets, "--json")
      [pid, (JSON.parse(status_text)["ticks"] rescue 0)]
    end
    best = ticks.max_by { |_, n| n }
    best[1] >= 20 && best[0]
  end
  t_fork0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  stdout, stderr, code = capture("series", worker.to_s, "--dir", sockets, "--out", out, "--every", "100",
                                 "--trace", "--mode", "fork", "--timeout", "120")
  t_fork1 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  puts stderr
  check(code.zero?, "series of worker #{worker} in fork mode (exit #{code})")
  paths = stdout.split("\n")
  check(paths.map { |p| File.basename(p) } == %w[A.json.gz B.json.gz C.json.gz], "the series wrote A, B, C")
  manifests = paths.map { |p| JSON.parse(File.read(p.sub(".json.gz", ".manifest.json"))) }
  check(manifests.all? { |m| m["process"]["pid"] == worker && m["capture"]["mode"] == "fork" },
        "each manifest names the worker and fork mode")
  pauses = manifests.map { |m| m["capture"]["vm_pause_seconds"] }

  t_inline0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  _, stderr, code = capture("dump", worker.to_s, "--dir", sockets, "--out", File.join(dir, "inline"),
                            "--name", "I", "--mode", "inline")
  t_inline1 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  check(code.zero?, "an inline dump of the same worker (#{stderr.strip})")
  inline = JSON.parse(File.read(File.join(dir, "inline", "I.manifest.json")))["capture"]

  _, stderr, code = capture("dump", "999999999", "--dir", sockets, "--out", File.join(dir, "none"))
  check(code == 13 && stderr.include?("no capture socket"), "a pid with no socket is a clear error, exit 13 as in heapleak capture")
ensure
  stop_load = true
  load&.join
  stop(puma)
end

latencies = []
latencies << samples.pop until samples.empty?
during = ->(from, to) { latencies.select { |t, _| t >= from && t <= to }.map(&:last) }
p99 = ->(xs) { xs.empty? ? 0 : xs.sort[(xs.size * 0.99).floor.clamp(0, xs.size - 1)] }
fork_window = during.call(t_fork0, t_fork1)
inline_window = during.call(t_inline0, t_inline1)
puts format("requests: %d in all; during the fork-mode series: %d, max %.1f ms, p99 %.1f ms, " \
            "VM pause per fork %s ms; during the inline dump: %d, max %.1f ms, VM paused %.1f ms for %.1f MiB",
            latencies.size, fork_window.size, (fork_window.max || 0) * 1000, p99.call(fork_window) * 1000,
            pauses.map { |s| (s * 1000).round(1) }.join(", "), inline_window.size, (inline_window.max || 0) * 1000,
            inline["vm_pause_seconds"] * 1000, inline["bytes_uncompressed"] / 1048576.0)
check(latencies.size > 300, "the load kept being served")

first, right, site = explain_first_row(heapleak, paths, File.join(__dir__, "apps/shop.ru"))
check(right, "explain's first row (#{first['key']}) holds objects allocated at #{site}")
puts "1 passed, 0 failed"
