# frozen_string_literal: true

require_relative "test_helper"

class DumpWriterTest < Minitest::Test
  include CaptureTestHelper
  DumpWriter = Heapleak::Capture::DumpWriter

  KEEP = []

  def test_fork_and_inline_write_a_complete_private_gzip_and_nothing_else
    %i[fork inline].each do |mode|
      out = File.join(private_dir, "out")
      marker = "dump-writer-marker-#{mode}"
      KEEP << marker.dup
      result = DumpWriter.new(out_dir: out).write("A", mode)
      assert_equal File.join(out, "A.json.gz"), result.path
      assert_equal 0o600, File.stat(result.path).mode & 0o777
      assert_equal 0o700, File.stat(out).mode & 0o777
      records = dump_records(result.path)
      assert_operator records.size, :>, 1000
      assert records.any? { |r| r["type"] == "STRING" && r["value"] == marker }, "#{mode}: the marker string is in the dump"
      assert records.any? { |r| r["type"] == "ROOT" }
      assert_equal File.size(result.path), result.bytes
      assert_operator result.bytes_uncompressed, :>, result.bytes
      assert_equal ["A.json.gz"], Dir.children(out), "#{mode}: no temporary is left"
    end
  end

  def test_a_child_killed_mid_dump_leaves_no_file_that_looks_complete
    out = File.join(private_dir, "out")
    writer = DumpWriter.new(out_dir: out, before_dump: -> { sleep 30 })
    killer = Thread.new do
      sleep 0.05 until writer.child_pid
      sleep 0.2
      Process.kill(:KILL, writer.child_pid)
    end
    error = assert_raises(Heapleak::Capture::CaptureError) { writer.write("B", :fork) }
    killer.join
    assert_match(/killed by SIGKILL/, error.message)
    refute File.exist?(File.join(out, "B.json.gz"))
    assert_empty Dir.children(out).grep(/B\.json\.gz\z/)
  end

  def test_stale_temporaries_of_a_dead_writer_are_removed
    out = File.join(private_dir, "out")
    Dir.mkdir(out, 0o700)
    dead = Process.spawn("true")
    Process.wait(dead)
    stale = File.join(out, ".C.json.gz.#{dead}.tmp")
    File.write(stale, "partial")
    DumpWriter.new(out_dir: out).write("A", :inline)
    refute File.exist?(stale)
  end

  def test_bad_names_are_refused
    out = File.join(private_dir, "out")
    ["../x", ".hidden", "a/b", ""].each do |name|
      assert_raises(Heapleak::Capture::CaptureError) { DumpWriter.new(out_dir: out).write(name, :inline) }
    end
  end

  # A disk that fills mid-dump: a 1 MiB tmpfs (root can mount one; CI runs
  # as root). The dump is larger than that even compressed.
  def test_a_full_disk_ends_with_a_clear_error_and_no_file
    mount = File.join(private_dir, "small")
    Dir.mkdir(mount)
    skip "needs root to mount a small tmpfs" unless Process.euid.zero?
    unless system("mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mount, err: File::NULL)
      skip "mount -t tmpfs is not permitted here"
    end
    begin
      %i[fork inline].each do |mode|
        out = File.join(mount, "out-#{mode}")
        error = assert_raises(Heapleak::Capture::CaptureError) { DumpWriter.new(out_dir: out).write("A", mode) }
        assert_match(/No space left on device/, error.message)
        assert_equal [], Dir.children(out), "#{mode}: nothing is left on the full disk"
      end
    ensure
      system("umount", mount)
    end
  end

  # Issue 40.7: the forked child (and the compressor it starts) run at a
  # lower priority than the worker; nice: 0 leaves them as they were.
  def test_the_dumping_child_runs_at_a_lower_priority
    out = File.join(private_dir, "out")
    base = Process.getpriority(Process::PRIO_PROCESS, 0)
    seen = File.join(File.dirname(out), "nice")
    record = -> { File.write(seen, Process.getpriority(Process::PRIO_PROCESS, 0).to_s) }
    DumpWriter.new(out_dir: out, before_dump: record).write("N", :fork)
    assert_equal [base + 10, 19].min, File.read(seen).to_i
    DumpWriter.new(out_dir: out, before_dump: record, nice: 0).write("Z", :fork)
    assert_equal base, File.read(seen).to_i
    assert_equal base, Process.getpriority(Process::PRIO_PROCESS, 0), "this process keeps its priority"
  end

  # Issue 42.7 (the gem's part): while the child dumps, this process sends
  # heartbeats, so a client may give up on silence without cutting a long
  # dump short.
  def test_heartbeats_while_the_child_dumps
    out = File.join(private_dir, "out")
    beats = 0
    DumpWriter.new(out_dir: out, before_dump: -> { sleep 2.5 }, heartbeat: -> { beats += 1 }).write("H", :fork)
    assert_operator beats, :>=, 1
  end
end

class RedactionTest < Minitest::Test
  include CaptureTestHelper
  SECRET = "sk_live_#{'Z' * 24}-customer@example.com"

  def test_no_string_value_survives_and_lengths_and_equality_are_kept
    # Kept alive through the dumps: two copies of one secret, one with escapes.
    DumpWriterTest::KEEP.concat([SECRET.dup, SECRET.dup, "tok\u00e9n \"quoted\" \\ and\nnewline #{rand}"])
    out = File.join(private_dir, "out")
    %i[fork inline].each do |mode|
      path = Heapleak::Capture::DumpWriter.new(out_dir: out, redact_key: "k" * 32).write("R#{mode}", mode).path
      text = Zlib::GzipReader.open(path, &:read)
      refute_includes text, "sk_live_", "#{mode}: the secret is gone"
      refute_includes text, "customer@example.com"
      refute_includes text, "quoted"
      strings = text.each_line.map { |l| JSON.parse(l) }.select { |r| r["type"] == "STRING" && r["value"] }
      assert_operator strings.size, :>, 100
      strings.each { |r| assert_equal r["bytesize"], r["value"].bytesize, r.inspect if r["bytesize"] }
      assert strings.all? { |r| r["value"].match?(/\A\h*\z/) }
    end
    redactor = Heapleak::Capture::Redactor.new("k" * 32)
    line = %({"address":"0x1", "type":"STRING", "bytesize":5, "value":"hello", "memsize":40}\n)
    again = redactor.line(line.dup)
    assert_equal again, redactor.line(line.dup), "equal strings stay equal"
    refute_equal again, Heapleak::Capture::Redactor.new("j" * 32).line(line.dup), "another key, another value"
    assert_equal 5, JSON.parse(again)["value"].bytesize
  end

  def test_a_short_key_is_refused
    assert_raises(ArgumentError) { Heapleak::Capture::Redactor.new("short") }
  end

  # Issue 42.6: a dynamic Symbol made from user data keeps its text in its
  # SYMBOL record's "value"; before, only STRING records were redacted.
  def test_dynamic_symbol_values_are_redacted_too
    secret = "sym_secret_#{rand(1 << 40)}_customer"
    DumpWriterTest::KEEP << secret.to_sym
    out = File.join(private_dir, "out")
    path = Heapleak::Capture::DumpWriter.new(out_dir: out, redact_key: "k" * 32).write("S", :inline).path
    text = Zlib::GzipReader.open(path, &:read)
    refute_includes text, "sym_secret_", "the Symbol's text is gone"
    symbols = text.each_line.map { |l| JSON.parse(l) }.select { |r| r["type"] == "SYMBOL" && r["value"] }
    refute_empty symbols
    assert symbols.all? { |r| r["value"].match?(/\A\h*\z/) }, "every Symbol value is a hash"
    symbols.each { |r| assert_equal r["bytesize"], r["value"].bytesize if r["bytesize"] }
  end
end
