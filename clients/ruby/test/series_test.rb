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
    worker = Thread.new { 200.times { kept << "traced-#{rand}"; sleep 0.002 } }
    answer = request("method" => "series", "names" => %w[A B C], "interval" => 0.3, "trace" => true,
                     "out" => File.join(dir, "s"))
    worker.join
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
end
