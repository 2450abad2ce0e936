# frozen_string_literal: true

# Redaction keeps the answer: a process keeps customer records (emails, card
# tokens) in a session store that leaks; the gem takes a series, the same
# dumps are redacted by the gem's compressor, and `heapleak explain` must give
# the same rows on both while no secret survives in the redacted files.
# usage: ruby tests/capture/redact_e2e.rb HEAPLEAK
require_relative "support"
$LOAD_PATH.unshift(CaptureE2E::GEM_LIB)
require "heapleak/capture"
require "heapleak/capture/control_client"
require "zlib"

include CaptureE2E # rubocop:disable Style/MixinUsage
heapleak = ARGV.fetch(0)
dir = scratch

module SessionStore
  SESSIONS = {}

  def self.login(n)
    SESSIONS["session-#{n}"] = { email: "customer#{n}@example.com", card: "tok_visa_4242#{n}" } # LEAK
  end
end

Heapleak::Capture.enable!(socket_dir: File.join(dir, "sockets"), min_gap: 0)
n = 0
worker = Thread.new { loop { SessionStore.login(n += 1); "page #{n}" * 3; sleep 0.001 } }
answer = Heapleak::Capture::ControlClient.new(Heapleak::Capture.server.path).request(
  "method" => "series", "names" => %w[A B C], "interval" => 0.4, "trace" => true, "out" => File.join(dir, "plain")
)
worker.kill
check(answer["ok"], "series taken (#{answer['error']})")
plain = answer["result"]["dumps"].map { |d| d["path"] }

redacted_dir = File.join(dir, "redacted")
Dir.mkdir(redacted_dir, 0o700)
key = "0123456789abcdef" * 2
redacted = plain.map do |path|
  target = File.join(redacted_dir, File.basename(path))
  Zlib::GzipReader.open(path) do |gz|
    IO.popen({ "HEAPLEAK_CAPTURE_REDACT_KEY" => key.unpack1("H*") },
             [RbConfig.ruby, File.join(GEM_LIB, "heapleak/capture/compressor.rb"), target], "r+") do |io|
      IO.copy_stream(gz, io)
      io.close_write
      check(JSON.parse(io.read)["redacted"], "#{File.basename(path)} redacted")
    end
  end
  # Its manifest beside it, as the gem writes one with every dump it
  # redacts: without it the gem's own objects (which the manifest names)
  # and the untrusted sites would count in one series and not the other.
  manifest = JSON.parse(File.read(path.sub(/\.json\.gz\z/, ".manifest.json")))
  manifest["capture"]["redacted"] = true
  File.write(target.sub(/\.json\.gz\z/, ".manifest.json"), JSON.generate(manifest))
  target
end

# The same series through `heapleak redact` (dumps taken without the gem).
cli_dir = File.join(dir, "cli")
Dir.mkdir(cli_dir, 0o700)
key_file = File.join(dir, "key")
File.write(key_file, key)
_, err, status = Open3.capture3(heapleak, "redact", "--key-file", key_file, *plain, cli_dir)
check(status.success?, "heapleak redact A B C DIR (#{err.strip})")
cli = plain.map { |p| File.join(cli_dir, File.basename(p)) }
check(cli.all? { |p| File.stat(p).mode & 0o777 == 0o600 }, "heapleak redact writes 0600")

texts = (redacted + cli).map { |p| Zlib::GzipReader.open(p, &:read) }
check(texts.none? { |t| t.include?("@example.com") || t.include?("tok_visa_") }, "no email or card token survives")
check(Zlib::GzipReader.open(plain[1], &:read).include?("@example.com"), "the plain dumps held them")

rows = [plain, redacted, cli].map do |paths|
  out, err, status = Open3.capture3(heapleak, "explain", "--json", *paths)
  fail!("explain: #{err}") unless status.success?
  JSON.parse(out)["leaks"].map { |l| [l["key"], l["count"], l["memsize"], l["retained"], l.dig("holder", "address")] }
end
check(rows[0] == rows[1], "explain gives the same #{rows[0].size} rows on the series the gem redacted " \
                         "(#{rows[0].inspect} against #{rows[1].inspect})")
check(rows[0] == rows[2], "explain gives the same #{rows[0].size} rows on the series heapleak redact redacted " \
                         "(#{rows[0].inspect} against #{rows[2].inspect})")
first, right, site = explain_first_row(heapleak, redacted, __FILE__)
check(right, "the first row (#{first['key']}) holds objects allocated at #{site}")
puts "1 passed, 0 failed"
