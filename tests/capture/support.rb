# frozen_string_literal: true

# Shared by the capture end-to-end tests: a scratch folder, processes that are
# always stopped, the heapleak-capture command, and the verdict of
# `heapleak explain` on the captured series.
require "fileutils"
require "json"
require "open3"
require "socket"
require "timeout"
require "tmpdir"

module CaptureE2E
  ROOT = File.expand_path("../..", __dir__)
  GEM_LIB = File.join(ROOT, "clients/ruby/lib")
  CAPTURE = File.join(ROOT, "clients/ruby/bin/heapleak-capture")

  module_function

  def fail!(message)
    warn "FAIL: #{message}"
    exit 1
  end

  def check(condition, message)
    fail!(message) unless condition
    puts "ok: #{message}"
  end

  def scratch
    dir = Dir.mktmpdir("heapleak-capture-e2e")
    File.chmod(0o700, dir)
    dir
  end

  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  def wait_until(what, seconds)
    deadline = Time.now + seconds
    until (value = yield)
      fail!("timed out after #{seconds} s waiting for #{what}") if Time.now > deadline
      sleep 0.1
    end
    value
  end

  def stop(pid, signal = :TERM)
    return unless pid

    Process.kill(signal, pid)
    Timeout.timeout(20) { Process.wait(pid) }
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  rescue Timeout::Error
    Process.kill(:KILL, pid)
    Process.wait(pid)
  end

  # Runs heapleak-capture; returns [stdout, stderr, exit code].
  def capture(*args, env: {})
    out, err, status = Open3.capture3(env, RbConfig.ruby, CAPTURE, *args)
    [out, err, status.exitstatus]
  end

  # explain's rows on the series; the first must hold objects allocated on the
  # app's line marked LEAK (the series is traced).
  def explain_first_row(heapleak, paths, app_file)
    out, err, status = Open3.capture3(heapleak, "explain", "--json", *paths)
    fail!("heapleak explain failed (#{status.exitstatus}): #{err}") unless status.success?
    report = JSON.parse(out)
    leak_line = File.readlines(app_file).index { |l| l.include?("# LEAK") } + 1
    site = "#{File.basename(app_file)}:#{leak_line}"
    first = report.fetch("leaks").first or fail!("explain found no leak rows")
    sites = first.fetch("objects").flat_map { |o| o.fetch("sites", []).map { |s| s["site"] } }
    text, = Open3.capture3(heapleak, "explain", "--limit", "3", *paths)
    puts text
    [first, sites.any? { |s| s.end_with?(site) }, site]
  end
end
