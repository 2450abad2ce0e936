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

  # Issue 40.3: only a capture that ran starts the gap. A request refused
  # for the rate limit, or by the governor, leaves it where it was.
  def test_a_refused_request_does_not_restart_the_gap
    dir = enable
    assert request("method" => "dump", "name" => "A", "out" => File.join(dir, "a"))["ok"]
    Capture.config.min_gap = 30
    sleep 1.0
    first = request("method" => "dump", "name" => "B", "out" => File.join(dir, "b"))
    assert_match(/rate limit/, first["error"])
    sleep 1.0
    second = request("method" => "dump", "name" => "B", "out" => File.join(dir, "b"))
    wait = ->(answer) { answer["error"][/allowed in ([\d.]+) s/, 1].to_f }
    assert_operator wait.call(second), :<, wait.call(first) - 0.5, "the refused request did not restart the gap"

    Capture.disable!
    Capture.enable!(socket_dir: File.join(dir, "sockets2"), min_gap: 30, allow_inline: false)
    Capture.instance_variable_set(:@governor, Capture::Governor.new(memory: FakeMemory.new(room: 0, rss: 1 << 30)))
    refused = request("method" => "dump", "name" => "C", "out" => File.join(dir, "c"))
    assert_equal "refused", refused["kind"]
    assert_equal 0.0, request("method" => "status")["result"]["next_capture_in"], "a refused capture starts no gap"
  end

  # Issue 42.5: a process out of fds with many connections waiting. Before,
  # the first EMFILE ended the accept loop for good; now it retries with one
  # log line, idle connections time out, and the socket serves again.
  def test_the_socket_serves_again_after_running_out_of_fds
    dir = private_dir
    sockets = File.join(dir, "sockets")
    ready_r, ready_w = IO.pipe
    go_r, go_w = IO.pipe
    pid = fork do
      ready_r.close
      go_w.close
      $stderr.reopen(File.join(dir, "stderr"))
      Process.setrlimit(Process::RLIMIT_NOFILE, 64)
      ENV["HEAPLEAK_CAPTURE_REQUEST_TIMEOUT"] = "1"
      ENV["HEAPLEAK_CAPTURE_MAX_CONNECTIONS"] = "8"
      Capture.enable!(socket_dir: sockets, min_gap: 0)
      hogs = []
      begin
        loop { hogs << File.open(File::NULL) }
      rescue Errno::EMFILE
        nil
      end
      ready_w.write("r")
      go_r.read(1) # the parent has opened its connections: give the fds back
      hogs.each(&:close)
      sleep 60
      exit!(0)
    end
    ready_w.close
    go_r.close
    begin
      ready_r.read(1)
      path = File.join(sockets, "heapleak-#{pid}.sock")
      idle = Array.new(40) { UNIXSocket.new(path) } # in the backlog, or refused once it is full
    rescue Errno::EAGAIN, Errno::ECONNREFUSED
      idle ||= []
    end
    begin
      sleep 1.0 # accept fails with EMFILE meanwhile
      go_w.write("g")
      go_w.close
      answer = nil
      deadline = Time.now + 30
      until answer&.dig("ok") || Time.now > deadline
        begin
          socket = UNIXSocket.new(path)
          socket.write(JSON.generate("method" => "status") + "\n")
          line = socket.wait_readable(5) && socket.gets
          answer = line && JSON.parse(line)
        rescue SystemCallError
          nil
        ensure
          socket&.close
        end
        sleep 0.2 unless answer&.dig("ok")
      end
      assert answer&.dig("ok"), "the socket serves again: #{answer.inspect}"
      assert_equal pid, answer["result"]["pid"]
      assert_match(/accept on .* failed \(Too many open files/, File.read(File.join(dir, "stderr")))
    ensure
      idle&.each(&:close)
      Process.kill(:KILL, pid)
      Process.wait(pid)
    end
  end

  # Issue 42.5: at most max_connections are served at once; one more is
  # answered "busy" at once, and an idle one is dropped after
  # request_timeout, so idle connections cannot hold the socket.
  def test_connections_are_capped_and_idle_ones_time_out
    dir = private_dir
    Capture.enable!(socket_dir: File.join(dir, "sockets"), min_gap: 0, max_connections: 2, request_timeout: 1.0)
    idle = Array.new(2) { UNIXSocket.new(Capture.server.path) }
    deadline = Time.now + 10
    sleep 0.05 until Capture.server.connections == 2 || Time.now > deadline # both accepted, waiting for a line
    extra = UNIXSocket.new(Capture.server.path)
    line = extra.wait_readable(5) && extra.gets
    extra.close
    answer = JSON.parse(line.to_s)
    assert_equal "busy", answer["kind"], line
    assert_match(/2 connections are being served/, answer["error"])
    timed_out = idle.map { |s| s.wait_readable(10) && JSON.parse(s.gets.to_s) }
    assert timed_out.all? { |a| a && a["error"].to_s.include?("no request line within 1.0 s") }, timed_out.inspect
    assert request("method" => "status")["ok"], "served again once the idle ones timed out"
  ensure
    idle&.each(&:close)
  end
end
