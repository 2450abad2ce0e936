# frozen_string_literal: true

$LOAD_PATH.unshift File.expand_path("../lib", __dir__)
require "minitest/autorun"
require "tmpdir"
require "zlib"
require "json"
require "heapleak/capture"
require "heapleak/capture/control_client"
require "heapleak/capture/redactor"

module CaptureTestHelper
  # A private folder for sockets and dumps, removed after the test.
  def private_dir
    dir = Dir.mktmpdir("heapleak-capture-test")
    File.chmod(0o700, dir)
    (@dirs ||= []) << dir
    dir
  end

  def teardown
    Heapleak::Capture.disable!
    (@dirs || []).each { |d| FileUtils.rm_rf(d) }
    super
  end

  # A fake memory reading for the governor.
  class FakeMemory
    def initialize(room:, rss:, limit: nil)
      @room = room
      @rss = rss
      @limit = limit
    end

    attr_reader :rss

    def read
      Heapleak::Capture::MemorySource::Reading.new(source: "test", limit: @limit, used: nil, room: @room)
    end
  end

  # Every line of a gzipped dump parsed; the last object must be whole.
  def dump_records(path)
    Zlib::GzipReader.open(path) { |gz| gz.each_line.map { |l| JSON.parse(l) } }
  end

  def request(object, &block)
    Heapleak::Capture::ControlClient.new(Heapleak::Capture.server.path).request(object, &block)
  end
end
