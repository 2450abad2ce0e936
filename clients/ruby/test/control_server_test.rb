# frozen_string_literal: true

require_relative "test_helper"
require "etc"

class ControlServerTest < Minitest::Test
  include CaptureTestHelper
  Capture = Heapleak::Capture

  def enable(**options)
    dir = private_dir
    Capture.enable!(socket_dir: File.join(dir, "sockets"), out_dir: File.join(dir, "dumps"), min_gap: 0, **options)
    dir
  end

  def test_the_socket_is_private_and_named_by_pid
    dir = enable
    path = Capture.server.path
    assert_equal File.join(dir, "sockets", "heapleak-#{Process.pid}.sock"), path
    assert_equal 0o600, File.stat(path).mode & 0o777
    assert_equal 0o700, File.stat(File.dirname(path)).mode & 0o777
    answer = request("method" => "status")
    assert answer["ok"]
    assert_equal Process.pid, answer["result"]["pid"]
    assert_includes %w[fork refuse], answer["result"]["governor"]["mode"]
  end

  def test_a_folder_others_may_write_or_another_user_owns_is_refused
    dir = private_dir
    open_dir = File.join(dir, "open")
    Dir.mkdir(open_dir)
    [0o777, 0o1777, 0o770].each do |mode|
      File.chmod(mode, open_dir)
      error = assert_raises(Capture::CaptureError) { Capture::ControlServer.ensure_private_dir(open_dir) }
      assert_match(/writable by others/, error.message)
    end
    File.symlink(dir, File.join(dir, "link"))
    assert_raises(Capture::CaptureError) { Capture::ControlServer.ensure_private_dir(File.join(dir, "link")) }
    skip "chown needs root" unless Process.euid.zero?

    theirs = File.join(dir, "theirs")
    Dir.mkdir(theirs, 0o700)
    File.chown(Etc.getpwnam("nobody").uid, nil, theirs)
    error = assert_raises(Capture::CaptureError) { Capture::ControlServer.ensure_private_dir(theirs) }
    assert_match(/belongs to uid/, error.message)
  end

  def test_a_dump_over_the_socket_writes_the_dump_and_its_manifest
    dir = enable
    events = []
    answer = request("method" => "dump", "name" => "one", "out" => File.join(dir, "here")) { |e| events << e }
    assert answer["ok"], answer["error"]
    result = answer["result"]
    assert_equal File.join(dir, "here", "one.json.gz"), result["path"]
    assert_equal %w[dumping dumped], events.map { |e| e["event"] }
    manifest = JSON.parse(File.read(File.join(dir, "here", "one.manifest.json")))
    assert_equal "heapleak-capture-manifest", manifest["format"]
    assert_equal Process.pid, manifest["process"]["pid"]
    assert_equal RUBY_VERSION, manifest["ruby"]["version"]
    assert_equal "fork", manifest["capture"]["mode"]
    %w[count compact_count name].each { |k| assert manifest["gc"].key?(k), "gc.#{k}" }
    assert_equal File.size(result["path"]), manifest["capture"]["bytes"]
    assert_equal 0o600, File.stat(File.join(dir, "here", "one.manifest.json")).mode & 0o777
  end

  def test_one_capture_at_a_time_and_a_rate_limit
    dir = enable
    first = Thread.new do
      request("method" => "series", "names" => %w[A B C], "interval" => 1.0, "out" => File.join(dir, "s1"))
    end
    sleep 0.05 until Capture.status["busy"]
    second = request("method" => "dump", "name" => "X", "out" => File.join(dir, "s2"))
    refute second["ok"]
    assert_equal "busy", second["kind"]
    assert first.value["ok"], first.value["error"]

    Capture.config.min_gap = 60
    third = request("method" => "dump", "name" => "Y", "out" => File.join(dir, "s3"))
    assert_equal "busy", third["kind"]
    assert_match(/rate limit/, third["error"])
  end

  # The limit source pointed at files this test writes (a cgroup of 300 MiB
  # with 20 MiB left): no fork, no inline, a refusal with the numbers.
  def test_a_cgroup_too_small_for_a_fork_refuses_with_the_numbers
    dir = private_dir
    limits = File.join(dir, "limits")
    Dir.mkdir(limits)
    File.write(File.join(limits, "memory.max"), "#{300 << 20}\n")
    File.write(File.join(limits, "memory.current"), "#{280 << 20}\n")
    Capture.enable!(socket_dir: File.join(dir, "sockets"), min_gap: 0, cgroup_dir: limits)
    answer = request("method" => "dump", "name" => "A", "out" => File.join(dir, "out"))
    refute answer["ok"]
    assert_equal "refused", answer["kind"]
    assert_match(/20\.0 MiB free of 300\.0 MiB \(cgroup v2/, answer["error"])
    refute File.exist?(File.join(dir, "out", "A.json.gz"))

    Capture.enable!(socket_dir: File.join(dir, "sockets"), min_gap: 0, cgroup_dir: limits, allow_inline: true)
    answer = request("method" => "dump", "name" => "A", "out" => File.join(dir, "out"))
    assert answer["ok"], answer["error"]
    assert_equal "inline", answer["result"]["mode"]
  end

  def test_bad_requests_get_an_error_and_the_server_keeps_serving
    enable
    socket = UNIXSocket.new(Capture.server.path)
    socket.write("not json\n")
    answer = JSON.parse(socket.gets)
    socket.close
    refute answer["ok"]
    assert_match(/not JSON/, answer["error"])

    socket = UNIXSocket.new(Capture.server.path)
    socket.write("{" + ("x" * 70_000))
    socket.close_write
    answer = JSON.parse(socket.gets)
    socket.close
    assert_match(/longer than/, answer["error"])

    assert_match(/absolute/, request("method" => "dump", "out" => "relative/dir")["error"])
    assert_match(/unknown method/, request("method" => "nope")["error"])
    assert request("method" => "status")["ok"]
  end

  def test_closing_removes_the_socket
    enable
    path = Capture.server.path
    Capture.disable!
    refute File.exist?(path)
  end
end
