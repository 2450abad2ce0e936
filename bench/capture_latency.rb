# frozen_string_literal: true

# Request latency of a real Puma worker with and without heapleak-capture,
# and inside the fork-mode dump window (issue 40.7): where the p99 of a
# dump window comes from. Owns nothing else; prints, asserts nothing.
#   ruby bench/capture_latency.rb [HEAP_MB] [SECONDS] [ROUNDS]
# (defaults 300 MB of live heap per worker, 15 s of baseline load, 3 dumps
# per setting). Settings: HEAPLEAK_CAPTURE_NICE=0 (the child and compressor
# at the worker's priority, as before) and the default (nice 10).
require "json"
require "net/http"
require "open3"
require "rbconfig"
require "socket"
require "tmpdir"
require "fileutils"
require "etc"

ROOT = File.expand_path("..", __dir__)
GEM_LIB = File.join(ROOT, "clients/ruby/lib")
CAPTURE = File.join(ROOT, "clients/ruby/bin/heapleak-capture")
HEAP_MB = Integer(ARGV.fetch(0, "300"))
SECONDS = Float(ARGV.fetch(1, "15"))
ROUNDS = Integer(ARGV.fetch(2, "3"))

APP = <<~RUBY
  # A worker with HEAP_MB of live, never-changing objects (the heap a dump
  # walks) serving small requests that allocate and drop.
  require "heapleak/capture/rack"
  BALLAST = Array.new(ENV.fetch("BENCH_HEAP_MB").to_i * 1024) { |i| Array.new(8) { |j| "b\#{i}-\#{j}" + "x" * 64 } }
  use Heapleak::Capture::RequestCounter
  run ->(_env) { [200, { "content-type" => "text/plain" }, [Array.new(50) { |i| "row \#{i} \#{rand}" }.join("\\n")]] }
RUBY

PUMA = <<~RUBY
  require "heapleak/capture/puma"
  workers 1
  threads 4, 4
  bind "tcp://127.0.0.1:\#{ENV.fetch('BENCH_PORT')}"
  pidfile ENV.fetch("BENCH_PIDFILE")
  rackup ENV.fetch("BENCH_RACKUP")
  Heapleak::Capture::Puma.install(self)
RUBY

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

def percentile(values, fraction)
  return 0.0 if values.empty?

  sorted = values.sort
  sorted[(sorted.size * fraction).floor.clamp(0, sorted.size - 1)]
end

def summary(label, values)
  format("%-34s n=%-6d p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms", label, values.size,
         percentile(values, 0.5) * 1000, percentile(values, 0.99) * 1000, (values.max || 0) * 1000)
end

# Minor and major page faults and CPU seconds of PID (/proc/PID/stat).
def proc_stat(pid)
  fields = File.read("/proc/#{pid}/stat").then { |s| s[(s.rindex(")") + 2)..].split }
  tick = 100.0
  { minflt: fields[7].to_i, majflt: fields[9].to_i, cpu: (fields[11].to_i + fields[12].to_i) / tick }
rescue SystemCallError
  { minflt: 0, majflt: 0, cpu: 0 }
end

def run_setting(label, nice)
  dir = Dir.mktmpdir("heapleak-capture-bench")
  File.chmod(0o700, dir)
  File.write(File.join(dir, "app.ru"), APP)
  File.write(File.join(dir, "puma.rb"), PUMA)
  port = TCPServer.new("127.0.0.1", 0).then { |s| s.addr[1].tap { s.close } }
  sockets = File.join(dir, "sockets")
  env = { "RUBYLIB" => GEM_LIB, "HEAPLEAK_CAPTURE_DIR" => sockets, "HEAPLEAK_CAPTURE_MIN_GAP" => "0",
          "BENCH_PORT" => port.to_s, "BENCH_PIDFILE" => File.join(dir, "puma.pid"),
          "BENCH_RACKUP" => File.join(dir, "app.ru"), "BENCH_HEAP_MB" => HEAP_MB.to_s }
  env["HEAPLEAK_CAPTURE_NICE"] = nice.to_s unless nice.nil?
  puma = Process.spawn(env, "puma", "-C", File.join(dir, "puma.rb"), out: File::NULL, err: File.join(dir, "log"),
                       pgroup: true)
  deadline = now + 180
  master = nil
  worker = nil
  until worker || now > deadline
    sleep 0.2
    master ||= File.read(File.join(dir, "puma.pid")).to_i if File.size?(File.join(dir, "puma.pid"))
    worker = (Dir.glob(File.join(sockets, "heapleak-*.sock")).map { |p| p[/(\d+)\.sock\z/, 1].to_i } - [master]).first
    worker = nil unless worker && (Net::HTTP.get_response(URI("http://127.0.0.1:#{port}/")) rescue nil)
  end
  abort "#{label}: puma did not start: #{File.read(File.join(dir, 'log'))}" unless worker

  samples = Queue.new
  stop = false
  # Two client threads, a connection per request (as a load balancer).
  clients = Array.new(2) do
    Thread.new do
      until stop
        t0 = now
        Net::HTTP.start("127.0.0.1", port) { |http| http.get("/") }
        samples << [t0, now - t0]
        sleep 0.005
      end
    end
  end
  sleep 2 # warm up
  base_from = now
  base_stat = proc_stat(worker)
  sleep SECONDS
  base_to = now
  base_cpu = (proc_stat(worker)[:cpu] - base_stat[:cpu]) / (base_to - base_from)
  base_faults = (proc_stat(worker)[:minflt] - base_stat[:minflt]) / (base_to - base_from)
  windows = []
  ROUNDS.times do |i|
    before = proc_stat(worker)
    t0 = now
    out, err, status = Open3.capture3(RbConfig.ruby, CAPTURE, "dump", worker.to_s, "--dir", sockets,
                                      "--out", File.join(dir, "dumps"), "--names", "D#{i}", "--mode", "fork", "--json")
    t1 = now
    abort "#{label}: dump failed: #{err}" unless status.success?
    after = proc_stat(worker)
    manifest = JSON.parse(File.read(File.join(dir, "dumps", "D#{i}.manifest.json")))["capture"]
    windows << { from: t0, to: t1, pause: manifest["vm_pause_seconds"], dump: manifest["dump_seconds"],
                 gc: manifest["gc_seconds"].to_f,
                 minflt: after[:minflt] - before[:minflt], cpu: after[:cpu] - before[:cpu],
                 mib: manifest["bytes_uncompressed"] / 1048576.0 }
    out.clear
    sleep 2
  end
  stop = true
  clients.each(&:join)
  all = []
  all << samples.pop until samples.empty?
  inside = ->(t) { windows.any? { |w| t >= w[:from] && t <= w[:to] } }
  base = all.select { |t, _| t >= base_from && t <= base_to }.map(&:last)
  win = all.select { |t, _| inside.call(t) }.map(&:last)
  whole = all.select { |t, _| t >= base_from }.map(&:last)
  puts "== #{label} (#{HEAP_MB} MB heap, #{ROUNDS} fork-mode dumps)"
  puts summary("without capture (#{SECONDS.round} s)", base)
  puts format("  worker without capture: %.2f CPU s/s, %.0f minor faults/s", base_cpu, base_faults)
  puts summary("whole run, dumps included", whole)
  puts summary("inside the dump windows", win)
  windows.each do |w|
    puts format("  dump: window %.2f s, GC.start %.0f ms, fork pause %.1f ms, child's dump %.2f s (%.0f MiB); " \
                "worker: %d minor faults (%.0f/s: copy-on-write), %.2f CPU s/s",
                w[:to] - w[:from], w[:gc] * 1000, w[:pause] * 1000, w[:dump], w[:mib], w[:minflt],
                w[:minflt] / (w[:to] - w[:from]), w[:cpu] / (w[:to] - w[:from]))
  end
ensure
  if puma
    Process.kill(:TERM, -puma) rescue nil # rubocop:disable Style/RescueModifier
    Process.wait(puma) rescue nil # rubocop:disable Style/RescueModifier
  end
  FileUtils.rm_rf(dir) if dir
end

puts "#{Etc.nprocessors} CPUs, load #{File.read('/proc/loadavg').split.first(3).join(' ')}, #{RUBY_DESCRIPTION}"
run_setting("child and compressor at the worker's priority (HEAPLEAK_CAPTURE_NICE=0)", 0)
run_setting("child and compressor at nice 10 (default)", nil)
