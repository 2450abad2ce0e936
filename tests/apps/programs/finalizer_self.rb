# frozen_string_literal: true
#
# finalizer_self.rb - an upload endpoint that spools each upload into an Upload
# object and registers a finalizer to remove its spool file. The finalizer proc is
# made inside Upload#initialize, so its self is the Upload: the finalizer table
# keeps the object it is meant to clean up after, and no Upload is ever freed
# (Ruby's "finalizer references object to be finalized"). Nothing in the program
# holds them: the holder is the VM's finalizer table (ROOT finalizers), the leak
# every Upload with its body, headers Hash and the finalizer's Proc. Benign: an
# upload-stats LRU at its cap, per-request garbage.

require 'rack'
require 'rack/mock'
require 'stringio'

class FinalizerSelfApp < LeakyApp
  register 'finalizer_self'

  SPOOL_DIR = '/nonexistent/spool' # never written: the files are not the point
  STATS = {}

  class Upload
    attr_reader :name, :size

    def initialize(name, body, headers)
      @name = name
      @body = StringIO.new(body)
      @size = body.bytesize
      @headers = headers
      @path = File.join(SPOOL_DIR, "#{name}.part")
      # the bug: a proc made here captures self, so the Upload can never be freed
      ObjectSpace.define_finalizer(self, proc { File.delete(@path) if File.exist?(@path) })
    end

    def checksum = @body.string.sum
  end

  # Ruby warns about the bug on every registration; keep the test output readable
  module QuietFinalizerWarning
    def warn(msg, **kw) = (super unless msg.include?('finalizer references object'))
  end

  APP = lambda do |env|
    req = Rack::Request.new(env)
    body = req.body.read
    up = Upload.new(req.params['name'], body, { 'content-type' => req.content_type, 'user' => req.params['user'] })
    STATS[up.name] = [up.size, up.checksum]
    STATS.delete(STATS.first[0]) while STATS.size > 25
    [201, { 'content-type' => 'text/plain' }, ["stored #{up.size}"]]
  end

  def description = 'Upload objects registering a finalizer whose proc captures the Upload itself'

  def boot
    Warning.singleton_class.prepend(QuietFinalizerWarning)
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      n = iter.abs * 1000 + i
      res = @mock.post("/upload?name=file-#{n}&user=u#{i % 6}", input: "payload #{n} " * 20, 'CONTENT_TYPE' => 'application/octet-stream')
      raise "POST failed: #{res.status}" unless res.status == 201
    end
  end

  # no object of the program holds the leak: the VM's finalizer table does
  def holder = nil
  def holder_root = 'finalizers'
  def holder_what = "the VM's finalizer table (ROOT finalizers): Uploads kept alive by their own finalizer"
  # (the root Hash compares its keys by identity)
  def leak_roots = ObjectSpace.reachable_objects_from_root.find { |k, _| k == 'finalizers' }&.last || []
  def root_samples = ObjectSpace.each_object(Upload).select { |u| u.name.start_with?('file-2') }.first(4)
  def bounded = [['FinalizerSelfApp::STATS Hash (cap 25)', STATS]]
end
