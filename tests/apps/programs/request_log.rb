# frozen_string_literal: true
#
# request_log.rb - a Rack middleware keeping the tail of every request line
# "for the admin page" in an Array that nothing trims. That tail is a
# substring of a longer String, so Ruby makes it a shared String (its bytes
# stay in a hidden frozen root, the whole line): new shared Strings that
# land on slots where A had short-lived Strings of earlier requests. The
# holder is that Array. Benign: a per-path hit counter Hash with a few keys,
# per-request garbage Strings.

require 'rack'
require 'rack/mock'

class RequestLogApp < LeakyApp
  register 'request_log'

  RECENT = [] # the bug: never trimmed
  HITS = Hash.new(0)

  class RecentLog
    def initialize(app) = (@app = app)

    def call(env)
      line = "#{env['REQUEST_METHOD']} #{env['PATH_INFO']}?#{env['QUERY_STRING']} from #{env['REMOTE_ADDR']} " \
             "agent=#{env['HTTP_USER_AGENT']}"
      RECENT << line[(line.index(" ") + 1)..] # a shared tail: its root keeps the whole line
      @app.call(env)
    end
  end

  ENDPOINT = lambda do |env|
    req = Rack::Request.new(env)
    HITS[req.path] += 1
    parts = req.params.map { |k, v| "#{k}=#{v}" } # garbage: their slots are reused next request
    [200, { 'content-type' => 'text/plain' }, [parts.join('&')]]
  end

  def description = 'Rack middleware keeping a shared substring of every request line in an Array'

  def boot
    @mock = Rack::MockRequest.new(RecentLog.new(ENDPOINT))
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.get("/orders/#{i % 4}?page=#{iter.abs}&item=#{i}", 'HTTP_USER_AGENT' => "client-#{i % 3}",
                                                                     'REMOTE_ADDR' => "10.0.0.#{i % 9}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = RECENT
  def holder_what = 'RequestLogApp::RECENT Array (shared substrings of request lines)'
  def bounded = [['RequestLogApp::HITS Hash (4 paths)', HITS]]
end
