# frozen_string_literal: true

# Every file the gem writes goes through SafeFile (issue 42.2-42.4): a symlink
# planted where a temporary or the target will be is never followed nor
# replaced, and an output folder another user owns or may write is refused,
# whether it is the configured out_dir or a request's `out`.
require_relative "test_helper"
require "etc"

class SafeFileTest < Minitest::Test
  include CaptureTestHelper
  Capture = Heapleak::Capture
  OTHER = "heapleak-captest"

  def enable(dir)
    Capture.enable!(socket_dir: File.join(dir, "sockets"), out_dir: File.join(dir, "dumps"), min_gap: 0)
  end

  # Another user, made when missing (root only: CI runs as root).
  def other_uid
    skip "needs root to chown to another user" unless Process.euid.zero?
    Etc.getpwnam(OTHER).uid
  rescue ArgumentError
    system("useradd", "-M", "-s", "/usr/sbin/nologin", OTHER, err: File::NULL) or skip "useradd failed"
    Etc.getpwnam(OTHER).uid
  end

  # The names the gem used to write through (".NAME.PID.tmp", opened without
  # O_EXCL or O_NOFOLLOW): a symlink planted there must not be followed.
  def test_a_symlink_planted_at_a_temporary_name_is_not_followed
    dir = private_dir
    enable(dir)
    out = File.join(dir, "out")
    Dir.mkdir(out, 0o700)
    victim = File.join(dir, "victim")
    File.write(victim, "precious\n")
    %w[A.manifest.json A.json.gz].each do |base|
      File.symlink(victim, File.join(out, ".#{base}.#{Process.pid}.tmp"))
    end
    answer = request("method" => "dump", "name" => "A", "out" => out)
    assert answer["ok"], answer["error"]
    assert_equal "precious\n", File.read(victim), "the planted link's target is untouched"
    assert File.file?(File.join(out, "A.manifest.json"))
    manifest_tmp = Dir.glob(File.join(out, ".*.tmp"), File::FNM_DOTMATCH).reject { |p| File.symlink?(p) }
    assert_empty manifest_tmp, "no temporary is left"
  end

  # A symlink, FIFO or device at the final name is refused, never replaced.
  def test_the_target_is_never_renamed_over_a_symlink_or_a_fifo
    dir = private_dir
    enable(dir)
    victim = File.join(dir, "victim")
    File.write(victim, "precious\n")
    out = File.join(dir, "links")
    Dir.mkdir(out, 0o700)
    File.symlink(victim, File.join(out, "A.json.gz"))
    answer = request("method" => "dump", "name" => "A", "out" => out)
    refute answer["ok"], "a dump over a symlink is refused"
    assert_match(/A\.json\.gz exists and is a link, not a regular file/, answer["error"])
    assert File.symlink?(File.join(out, "A.json.gz")), "the link is still there"
    assert_equal "precious\n", File.read(victim)

    fifo = File.join(dir, "fifo")
    Dir.mkdir(fifo, 0o700)
    File.mkfifo(File.join(fifo, "B.manifest.json"))
    answer = request("method" => "dump", "name" => "B", "out" => fifo)
    refute answer["ok"], "a manifest over a FIFO is refused"
    assert_match(/B\.manifest\.json exists and is a fifo/, answer["error"])
    assert File.pipe?(File.join(fifo, "B.manifest.json"))
    assert_empty Dir.children(fifo).grep(/\.tmp\z/), "no temporary is left"
  end

  def test_an_output_folder_another_user_owns_or_may_write_is_refused
    dir = private_dir
    enable(dir)
    theirs = File.join(dir, "theirs")
    Dir.mkdir(theirs, 0o755)
    File.chown(other_uid, nil, theirs)
    answer = request("method" => "dump", "name" => "A", "out" => theirs)
    refute answer["ok"]
    assert_match(/the output folder #{Regexp.escape(theirs)} belongs to uid #{other_uid}/, answer["error"])
    assert_empty Dir.children(theirs)

    # Below a folder another user owns, a new folder is refused too: that
    # user could swap it for a link.
    answer = request("method" => "dump", "name" => "A", "out" => File.join(theirs, "sub"))
    refute answer["ok"]
    assert_match(/above/, answer["error"])
    refute File.exist?(File.join(theirs, "sub"))

    open_dir = File.join(dir, "open")
    Dir.mkdir(open_dir)
    File.chmod(0o777, open_dir)
    answer = request("method" => "dump", "name" => "A", "out" => open_dir)
    refute answer["ok"]
    assert_match(/writable by others \(mode 777\)/, answer["error"])
    assert_empty Dir.children(open_dir)
  end

  # A socket folder refused (writable by others) leaves the signal as the
  # fallback, but never with the dumps inside that same folder.
  def test_a_refused_socket_folder_is_never_used_for_dumps
    dir = private_dir
    open_dir = File.join(dir, "open")
    Dir.mkdir(open_dir)
    File.chmod(0o777, open_dir)
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      $stderr.reopen(File.join(dir, "stderr"))
      Capture.enable!(socket_dir: open_dir, min_gap: 0)
      Process.kill(:USR2, Process.pid) if Capture.status["signal"]
      sleep 1.5
      writer.write(JSON.generate("signal" => Capture.status["signal"]))
      exit!(0)
    end
    writer.close
    result = JSON.parse(reader.read)
    Process.wait(pid)
    assert_equal [], Dir.children(open_dir), "nothing written in the refused folder"
    assert_nil result["signal"], "no fallback trigger that would dump there"
    assert_match(/writable by others/, File.read(File.join(dir, "stderr")))
  end

  # The socket folder's parents follow the same rule (42.4): a folder under
  # one another user owns is refused, not made.
  def test_a_socket_folder_below_another_users_folder_is_refused
    dir = private_dir
    theirs = File.join(dir, "theirs")
    Dir.mkdir(theirs, 0o755)
    File.chown(other_uid, nil, theirs)
    error = assert_raises(Capture::CaptureError) { Capture::ControlServer.ensure_private_dir(File.join(theirs, "sockets")) }
    assert_match(/the socket folder #{Regexp.escape(theirs)} \(above .*sockets\) belongs to uid #{other_uid}/, error.message)
    refute File.exist?(File.join(theirs, "sockets"))
  end

  # An out folder that is a symlink another user planted (as /tmp/series
  # could be) is not followed into a folder of their choosing.
  def test_an_output_folder_that_is_another_users_symlink_is_refused
    dir = private_dir
    enable(dir)
    target = File.join(dir, "mine")
    Dir.mkdir(target, 0o700)
    link = File.join(dir, "series")
    File.symlink(target, link)
    File.lchown(other_uid, nil, link)
    answer = request("method" => "dump", "name" => "A", "out" => link)
    refute answer["ok"]
    assert_match(/is a symbolic link of uid #{other_uid}/, answer["error"])
    assert_empty Dir.children(target)
  end
end
