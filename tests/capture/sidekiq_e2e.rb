# frozen_string_literal: true

# Sidekiq with a real redis-server (started here, on a unix socket) runs a
# leaky job while this script keeps enqueuing; heapleak-capture takes a
# traced series every 150 jobs (heapleak capture --series); `heapleak explain` must put the leak first.
# usage: ruby tests/capture/sidekiq_e2e.rb HEAPLEAK
require_relative "support"

include CaptureE2E # rubocop:disable Style/MixinUsage
heapleak = ARGV.fetch(0)
dir = scratch
sockets = File.join(dir, "sockets")
out = File.join(dir, "series")
redis_socket = File.join(dir, "redis.sock")
redis_log = File.join(dir, "redis.log")
redis = Process.spawn("redis-server", "--port", "0", "--unixsocket", redis_socket, "--unixsocketperm", "700",
                      "--save", "", "--appendonly", "no", "--dir", dir, out: redis_log, err: redis_log)
sidekiq = nil
feeder = nil
begin
  wait_until("redis-server's socket", 30) { File.socket?(redis_socket) }
  env = { "RUBYLIB" => GEM_LIB, "HEAPLEAK_CAPTURE_DIR" => sockets, "HEAPLEAK_CAPTURE_MIN_GAP" => "0",
          "REDIS_URL" => "unix://#{redis_socket}" }
  jobs = File.join(__dir__, "apps/jobs.rb")
  log = File.join(dir, "sidekiq.log")
  sidekiq = Process.spawn(env, "sidekiq", "-r", jobs, "-c", "2", out: log, err: log)
  socket = File.join(sockets, "heapleak-#{sidekiq}.sock")
  wait_until("sidekiq's capture socket", 60) { File.socket?(socket) }

  ENV["REDIS_URL"] = env["REDIS_URL"]
  $LOAD_PATH.unshift(GEM_LIB)
  require jobs
  stop_feed = false
  feeder = Thread.new do
    n = 0
    until stop_feed
      ReportJob.perform_async("acct-#{n % 7}", n)
      n += 1
      sleep 0.002
    end
    n
  end

  # heapleak's own client this time (puma_e2e.rb uses the gem's): the series,
  # then explain on it.
  stdout, stderr, status = Open3.capture3(heapleak, "capture", sidekiq.to_s, "--dir", sockets, "--out", out,
                                          "--series", "--every", "150", "--trace", "--timeout", "120s")
  puts stderr, stdout
  check(status.success?, "heapleak capture --series of the Sidekiq process every 150 jobs (exit #{status.exitstatus})")
  check(stdout.include?("Leaks by bytes retained"), "heapleak capture ends with explain")
  paths = stdout.split("\n").grep(/\.json\.gz\z/)
  check(paths.size == 3 && paths.all? { |p| File.size?(p) }, "the series wrote A, B, C")
  status_out, = capture("status", socket, "--json")
  status = JSON.parse(status_out)
  check(status["ticks"] >= 300, "the job counter saw #{status['ticks']} jobs")
ensure
  stop_feed = true
  enqueued = feeder&.value
  stop(sidekiq)
  stop(redis)
end
puts "enqueued #{enqueued} jobs"

first, right, site = explain_first_row(heapleak, paths, File.join(__dir__, "apps/jobs.rb"))
check(right, "explain's first row (#{first['key']}) holds objects allocated at #{site}")
puts "1 passed, 0 failed"
