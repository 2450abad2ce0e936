# frozen_string_literal: true

require_relative "test_helper"

# Forks and signals: each case runs in a child process of its own, so traps
# and the fork hook never touch the test runner.
class ProcessTest < Minitest::Test
  include CaptureTestHelper
  Capture = Heapleak::Capture

  def in_child
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      writer.write(JSON.generate(yield))
      exit!(0)
    rescue Exception => e # rubocop:disable Lint/RescueException
      writer.write(JSON.generate("error" => "#{e.class}: #{e.message}"))
      exit!(1)
    end
    writer.close
    result = JSON.parse(reader.read)
    Process.wait(pid)
    result
  end

  def test_a_forked_worker_opens_its_own_socket_and_the_parent_keeps_its_own
    dir = private_dir
    sockets = File.join(dir, "sockets")
    result = in_child do
      Capture.enable!(socket_dir: sockets, min_gap: 0)
      worker_r, worker_w = IO.pipe
      worker = fork do # like a Puma worker
        worker_r.close
        worker_w.write(Capture.server.path)
        worker_w.close
        sleep 10
      end
      worker_w.close
      worker_path = worker_r.read
      status = Capture::ControlClient.new(worker_path).request("method" => "status")
      parent = Capture::ControlClient.new(Capture.server.path).request("method" => "status")
      Process.kill(:KILL, worker)
      Process.wait(worker)
      { "worker_path" => worker_path, "worker_pid" => worker, "worker_status_pid" => status.dig("result", "pid"),
        "parent_status_pid" => parent.dig("result", "pid"), "parent_path" => Capture.server.path }
    end
    refute result["error"], result["error"]
    assert_equal File.join(sockets, "heapleak-#{result['worker_pid']}.sock"), result["worker_path"]
    assert_equal result["worker_pid"], result["worker_status_pid"]
    refute_equal result["worker_pid"], result["parent_status_pid"]
    assert_match(/heapleak-#{result['parent_status_pid']}\.sock\z/, result["parent_path"])
  end

  def test_the_signal_is_the_fallback_where_no_socket_can_be_opened
    dir = private_dir
    open_dir = File.join(dir, "open")
    Dir.mkdir(open_dir)
    File.chmod(0o777, open_dir)
    out = File.join(dir, "out")
    result = in_child do
      $stderr.reopen(File.join(dir, "stderr"))
      Capture.enable!(socket_dir: open_dir, out_dir: out, min_gap: 0)
      Process.kill(:USR2, Process.pid)
      deadline = Time.now + 20
      sleep 0.05 until Dir.glob(File.join(out, "heap-*.json.gz")).any? || Time.now > deadline
      { "server" => Capture.server.nil?, "signal" => Capture.status["signal"],
        "dumps" => Dir.glob(File.join(out, "heap-*.json.gz")).size }
    end
    refute result["error"], result["error"]
    assert result["server"], "no socket in a folder others may write"
    assert_equal "SIGUSR2", result["signal"]
    assert_equal 1, result["dumps"]
    assert_match(/writable by others/, File.read(File.join(dir, "stderr")))
  end

  def test_a_signal_the_application_already_traps_is_left_alone
    dir = private_dir
    result = in_child do
      $stderr.reopen(File.join(dir, "stderr"))
      got = []
      Signal.trap(:USR2) { got << 1 }
      Capture.enable!(socket_dir: File.join(dir, "sockets"), signal: "USR2", min_gap: 0)
      Process.kill(:USR2, Process.pid)
      sleep 0.2
      { "app_handler_ran" => got.size, "signal" => Capture.status["signal"] }
    end
    assert_equal 1, result["app_handler_ran"]
    assert_nil result["signal"]
    assert_match(/already has a handler/, File.read(File.join(dir, "stderr")))
  end

  def test_nothing_happens_until_enabled
    result = in_child do
      ENV.delete("HEAPLEAK_CAPTURE_DIR")
      Capture.enable_from_env!
      { "enabled" => Capture.enabled?, "server" => Capture.server.nil? }
    end
    assert_equal({ "enabled" => false, "server" => true }, result)
  end

  # Issue 40.6: in plain Ruby the variable alone is enough.
  def test_requiring_the_gem_with_the_variable_set_enables_it
    dir = private_dir
    sockets = File.join(dir, "sockets")
    lib = File.expand_path("../lib", __dir__)
    out = IO.popen({ "HEAPLEAK_CAPTURE_DIR" => sockets }, [RbConfig.ruby, "-I#{lib}", "-e",
                                                          'require "heapleak/capture"; ' \
                                                          'print Heapleak::Capture.enabled?, " ", File.socket?(Heapleak::Capture.server.path)'],
                   &:read)
    assert_equal "true true", out
  end

  # The Puma master (before_fork runs there) says what it is, and refuses
  # a series --every: it serves no request, the series would wait for ever.
  def test_the_puma_master_says_so_and_refuses_a_series_every_n_requests
    require "heapleak/capture/puma"
    dir = private_dir
    result = in_child do
      dsl = Class.new do
        attr_reader :hooks

        def before_fork(&block) = (@hooks ||= {})[:before_fork] = block
        def on_worker_boot(&block) = (@hooks ||= {})[:on_worker_boot] = block
      end.new
      Capture::Puma.install(dsl, socket_dir: File.join(dir, "sockets"), min_gap: 0)
      dsl.hooks[:before_fork].call
      answer = request("method" => "series", "names" => %w[A B], "every" => 10, "out" => File.join(dir, "s"))
      { "role" => request("method" => "status")["result"]["role"], "error" => answer["error"],
        "wrote" => File.exist?(File.join(dir, "s")) }
    end
    assert_equal "puma master", result["role"]
    assert_match(/is the Puma master: it serves no requests/, result["error"])
    refute result["wrote"], "nothing dumped"
  end
end
