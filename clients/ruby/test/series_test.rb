# frozen_string_literal: true

require_relative "test_helper"

class SeriesTest < Minitest::Test
  include CaptureTestHelper
  Capture = Heapleak::Capture

  def enable
    dir = private_dir
    Capture.enable!(socket_dir: File.join(dir, "sockets"), out_dir: File.join(dir, "dumps"), min_gap: 0)
    dir
  end

  # Allocation tracing is on from just after A to the last dump: A has no
  # allocation sites, the objects made between A and B have this file's.
  def test_tracing_runs_from_after_the_first_dump_to_the_last
    dir = enable
    kept = []
    series = Thread.new do
      request("method" => "series", "names" => %w[A B C], "interval" => 0.3, "trace" => true,
              "out" => File.join(dir, "s"))
    end
    # Allocates until the series ends, however long its dumps take (200
    # appends could end before tracing began on a busy machine).
    while series.alive?
      kept << "traced-#{rand}"
      sleep 0.002
    end
    answer = series.value
    assert answer["ok"], answer["error"]
    paths = answer["result"]["dumps"].map { |d| d["path"] }
    sites = paths.map { |p| dump_records(p).count { |r| r["file"] == __FILE__ } }
    assert_equal 0, sites[0], "A is untraced"
    assert_operator sites[1], :>, 10
    assert_operator sites[2], :>=, sites[1]
    manifests = paths.map { |p| JSON.parse(File.read(Capture::Manifest.path_for(p))) }
    assert_equal [false, true, true], manifests.map { |m| m["allocation_tracing"]["on"] }
    assert_equal [0, 1, 2], manifests.map { |m| m["series"]["index"] }
    assert_equal 1, manifests.map { |m| m["series"]["id"] }.uniq.size
    assert_nil Capture.tracing_since, "tracing is off again"
    assert_equal [], answer["result"]["warnings"]
  end

  def test_a_compaction_between_dumps_is_reported
    skip "GC.compact is not supported here" unless GC.respond_to?(:compact)
    dir = enable
    series = Thread.new do
      request("method" => "series", "names" => %w[A B C], "interval" => 0.5, "out" => File.join(dir, "s"))
    end
    sleep 0.05 until File.exist?(File.join(dir, "s", "A.manifest.json"))
    GC.compact
    answer = series.value
    assert answer["ok"], answer["error"]
    warnings = answer["result"]["warnings"]
    assert_equal 1, warnings.size
    assert_match(/compacted between A and B/, warnings.first)
  end

  def test_a_series_waits_for_units_of_work
    dir = enable
    series = Thread.new do
      request("method" => "series", "names" => %w[A B], "every" => 5, "timeout" => 30, "out" => File.join(dir, "s"))
    end
    sleep 0.05 until File.exist?(File.join(dir, "s", "A.manifest.json"))
    sleep 0.2
    refute File.exist?(File.join(dir, "s", "B.json.gz")), "B waits for 5 ticks"
    5.times { Capture.tick }
    assert series.value["ok"]
    assert File.exist?(File.join(dir, "s", "B.json.gz"))
  end

  def test_a_series_that_waits_too_long_gives_up_with_the_count
    dir = enable
    answer = request("method" => "series", "names" => %w[A B], "every" => 5, "timeout" => 0.3,
                     "out" => File.join(dir, "s"))
    refute answer["ok"]
    assert_match(/0 of 5 units of work/, answer["error"])
  end

  def test_series_names_must_be_two_or_more_and_distinct
    dir = enable
    assert_match(/at least 2/, request("method" => "series", "names" => ["A"], "out" => dir)["error"])
    assert_match(/repeat/, request("method" => "series", "names" => %w[A A], "out" => dir)["error"])
  end

  # Issue 40.2: the first series' sites must not survive into the second.
  # Before the fix, tracing was stopped but its table kept, and the second
  # series' untraced A showed the first series' objects with this file.
  def test_a_second_traced_series_carries_no_site_of_the_first
    dir = enable
    kept = []
    traced_series = lambda do |out|
      series = Thread.new do
        request("method" => "series", "names" => %w[A B], "interval" => 0.3, "trace" => true,
                "out" => File.join(dir, out))
      end
      while series.alive?
        kept << "kept-#{rand}"
        sleep 0.002
      end
      answer = series.value
      assert answer["ok"], answer["error"]
      answer["result"]["dumps"].map { |d| d["path"] }
    end
    first = traced_series.call("s1")
    assert_operator dump_records(first[1]).count { |r| r["file"] == __FILE__ }, :>, 10, "the first series is traced"
    second = traced_series.call("s2")
    sited = dump_records(second[0]).count { |r| r.key?("file") }
    assert_equal 0, sited, "the second series' A (untraced) has no record with an allocation site"
    manifests = second.map { |p| JSON.parse(File.read(Capture::Manifest.path_for(p))) }
    tracing = manifests.map { |m| m["allocation_tracing"] }
    assert_equal [false, true], tracing.map { |t| t["on"] }
    assert_nil tracing[0]["since_gc_count"]
    assert_kind_of Integer, tracing[1]["since_gc_count"]
    assert_operator tracing[1]["since_gc_count"], :>=, manifests[0]["gc"]["count"]
    # Objects of the first series still alive carry no site in the second's B.
    old = dump_records(first[1]).select { |r| r["file"] == __FILE__ }.map { |r| r["address"] }.to_h { |a| [a, true] }
    refute dump_records(second[1]).any? { |r| old[r["address"]] && r["file"] && r["generation"].to_i < tracing[1]["since_gc_count"] },
           "no object older than the second tracing carries a site"
  end

  # Issue 41.3: auto_compact is off for the length of a series, restored
  # after (also when the series fails), and the manifests say so.
  def test_auto_compact_is_off_during_a_series_and_restored_after
    skip "GC.auto_compact is not supported here" unless GC.respond_to?(:auto_compact=)
    begin
      GC.auto_compact = true
    rescue NotImplementedError
      skip "GC.auto_compact is not supported here"
    end
    dir = enable
    answer = request("method" => "series", "names" => %w[A B], "interval" => 0.1, "out" => File.join(dir, "s"))
    assert answer["ok"], answer["error"]
    manifests = answer["result"]["dumps"].map { |d| JSON.parse(File.read(d["manifest"])) }
    assert_equal [false, false], manifests.map { |m| m["gc"]["auto_compact"] }
    assert_equal [true, true], manifests.map { |m| m["series"]["auto_compact_suspended"] }
    assert_equal true, GC.auto_compact, "restored after the series"

    failed = request("method" => "series", "names" => %w[A B], "every" => 5, "timeout" => 0.3, "out" => File.join(dir, "f"))
    refute failed["ok"]
    assert_equal true, GC.auto_compact, "restored after a series that failed"
  ensure
    GC.auto_compact = false if GC.respond_to?(:auto_compact=)
  end

  # Issue 40.1: a series holds nothing that grows from dump to dump. Its
  # thread is named and listed (address as in the dump) in every manifest.
  def test_the_manifest_lists_the_gems_threads_by_their_dump_address
    dir = enable
    answer = request("method" => "series", "names" => %w[A B C], "interval" => 0.1, "out" => File.join(dir, "s"))
    assert answer["ok"], answer["error"]
    answer["result"]["dumps"].each do |d|
      manifest = JSON.parse(File.read(d["manifest"]))
      threads = manifest.dig("capture_objects", "threads")
      assert_operator threads.size, :>=, 2, "the accept thread and the one serving the series"
      by_address = dump_records(d["path"]).to_h { |r| [r["address"], r] }
      threads.each do |address|
        assert_equal "Thread", by_address.dig(address, "type") == "DATA" && "Thread", "#{address} is a Thread in #{d['name']}"
      end
    end
    names = Capture.capture_threads.map(&:name)
    assert names.all? { |n| n.start_with?("heapleak-capture ") }
    assert_includes names, "heapleak-capture accept"
  end
end
