# frozen_string_literal: true

# The heapleak-capture command against this process's own socket: the exit
# codes of the project's table (docs/exit-codes.md), the flags it shares with
# `heapleak capture`, and --explain without heapleak on PATH (issue 40.5-40.6).
require_relative "test_helper"
require "open3"
require "rbconfig"

class CliTest < Minitest::Test
  include CaptureTestHelper
  Capture = Heapleak::Capture
  BIN = File.expand_path("../bin/heapleak-capture", __dir__)

  def enable
    dir = private_dir
    Capture.enable!(socket_dir: File.join(dir, "sockets"), min_gap: 0)
    dir
  end

  # The command runs in a child while this process serves it on a thread.
  def cli(*args, env: {})
    out, err, status = Open3.capture3(env, RbConfig.ruby, BIN, *args)
    [out, err, status.exitstatus]
  end

  def test_explain_without_heapleak_on_path_says_so_and_keeps_the_dumps
    dir = enable
    # A PATH with ruby's folder only: no heapleak there.
    path = File.dirname(RbConfig.ruby)
    skip "heapleak is in ruby's folder" if File.exist?(File.join(path, "heapleak"))
    out, err, code = cli("series", Process.pid.to_s, "--dir", File.join(dir, "sockets"), "--out", File.join(dir, "s"),
                         "--names", "A,B", "--interval", "100ms", "--explain", env: { "PATH" => path })
    assert_equal 1, code, err
    assert_match(/heapleak is not on PATH/, err)
    paths = %w[A B].map { |n| File.join(dir, "s", "#{n}.json.gz") }
    paths.each do |p|
      assert File.file?(p), "#{p} is kept"
      assert_includes err, p, "its path is printed with the message"
    end
    assert_match(/run: heapleak explain #{Regexp.escape(paths.join(' '))}/, err)
    assert_equal paths, out.split("\n")
  end

  def test_exit_codes_and_flags_are_those_of_heapleak_capture
    dir = enable
    sockets = File.join(dir, "sockets")
    _, err, code = cli("status", "999999999", "--dir", sockets)
    assert_equal 13, code, "no socket to talk to: 13, as heapleak capture says (#{err})"

    # busy: a series runs; a dump asked meanwhile exits 1, not 3 (3 is
    # "file not found" in the project's table).
    series = Thread.new do
      request("method" => "series", "names" => %w[A B], "interval" => 3, "out" => File.join(dir, "s1"))
    end
    sleep 0.05 until Capture.status["busy"]
    _, err, code = cli("dump", Process.pid.to_s, "--dir", sockets, "--out", File.join(dir, "d"), "--names", "X")
    assert_equal 1, code, err
    assert_match(/busy/, err)
    assert series.value["ok"]

    # --names names a single dump too (heapleak capture's flag); --name stays.
    out, err, code = cli("dump", Process.pid.to_s, "--dir", sockets, "--out", File.join(dir, "d"), "--names", "One")
    assert_equal 0, code, err
    assert_equal File.join(dir, "d", "One.json.gz"), out.strip
    _, err, code = cli("dump", Process.pid.to_s, "--dir", sockets, "--out", File.join(dir, "d"), "--names", "P,Q")
    assert_equal 2, code
    assert_match(/one name for one dump/, err)
    _, err, code = cli("series", Process.pid.to_s, "--dir", sockets, "--out", File.join(dir, "d"), "--interval", "soon")
    assert_equal 2, code
    assert_match(/duration such as 30s/, err)

    out, = cli("list", "--dir", sockets)
    assert_equal "#{Process.pid}\t#{Capture.server.path}", out.strip, "no role: a plain process"
    Capture.role = "puma master"
    out, = cli("list", "--dir", sockets)
    assert_equal "#{Process.pid}\t#{Capture.server.path}\tpuma master", out.strip
  ensure
    Capture.role = nil
  end
end
