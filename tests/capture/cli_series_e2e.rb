# frozen_string_literal: true

# `heapleak capture --series --names D1,D2,D3,D4` of a plain Ruby process
# with a steady leak: the capture ends with explain over all four dumps
# (not only the first, second and last), the leak's holder read in every
# one of them and grown in each interval.
# usage: ruby tests/capture/cli_series_e2e.rb HEAPLEAK
require_relative "support"

include CaptureE2E # rubocop:disable Style/MixinUsage
heapleak = ARGV.fetch(0)
dir = scratch
sockets = File.join(dir, "sockets")
out = File.join(dir, "out")
FileUtils.mkdir_p([sockets, out])
program = <<~RUBY
  require "heapleak/capture"
  Heapleak::Capture.enable!(socket_dir: #{sockets.inspect}, min_gap: 0)
  class Ledger
    LINES = []
  end
  $stdout.sync = true
  puts "ready"
  loop { Ledger::LINES << "line \#{Ledger::LINES.size} " + ("x" * 64); sleep 0.002 }
RUBY
reader, writer = IO.pipe
pid = Process.spawn(RbConfig.ruby, "-I#{GEM_LIB}", "-e", program, out: writer)
writer.close
begin
  Timeout.timeout(30) { reader.gets }
  stdout, stderr, status = Open3.capture3(heapleak, "capture", pid.to_s, "--dir", sockets, "--out", out,
                                          "--series", "--names", "D1,D2,D3,D4", "--interval", "0.4")
  check(status.success?, "heapleak capture --series of four dumps (exit #{status.exitstatus}): #{stderr.lines.last}")
  check(stdout.include?("growth over 4 dumps"), "it ends with explain over all four dumps")
  first = stdout[/^1\. .*\n(?:   .*\n)*/].to_s
  check(first.include?("Ledger") && first.match?(/length grew in 3 of 3 intervals: [\d,]+ -> [\d,]+ -> [\d,]+ -> [\d,]+\)/),
        "its first row is the Ledger's Array, grown in 3 of 3 intervals: #{first.lines[1]&.strip}")
ensure
  stop(pid)
  FileUtils.rm_rf(dir)
end
puts "1 passed, 0 failed"
