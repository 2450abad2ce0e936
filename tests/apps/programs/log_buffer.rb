# frozen_string_literal: true
#
# log_buffer.rb - a Rack API whose request Logger writes to a StringIO "so the
# admin page can show recent logs" (a development setting left on in
# production): the StringIO's String, allocated at boot, grows with every
# request and is never truncated. Next to it, request latencies are appended to
# an Array of Integers for a percentile report that is never reset. Neither leak
# makes a single new object that stays: both are old objects growing in place.
# The holder is the log String. Benign: per-request garbage, a header cache.

require 'logger'
require 'stringio'
require 'rack'
require 'rack/mock'

class LogBufferApp < LeakyApp
  register 'log_buffer'

  LOG_IO = StringIO.new(+'')
  LOGGER = Logger.new(LOG_IO, progname: 'api')
  LATENCIES_MS = [] # Integers: immediates, no objects of their own
  HEADERS = {}

  APP = lambda do |env|
    req = Rack::Request.new(env)
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC, :millisecond)
    body = "order #{req.params['id']}: #{'x' * 64}"
    LOGGER.info("GET #{req.path} id=#{req.params['id']} ua=#{env['HTTP_USER_AGENT']} #{'-' * 300}")
    LATENCIES_MS << (Process.clock_gettime(Process::CLOCK_MONOTONIC, :millisecond) - started + req.params['id'].to_i % 7)
    [200, (HEADERS[:json] ||= { 'content-type' => 'application/json' }), [body]]
  end

  def description = 'request Logger writing to a StringIO buffer never truncated, and latencies kept in an Array of Integers'
  def requests = 60

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.get("/orders?id=#{iter.abs * 1000 + i}", 'HTTP_USER_AGENT' => "client/#{i % 3}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = LOG_IO.string
  def holder_what = 'LogBufferApp::LOG_IO (StringIO) buffer String of the request Logger'
  def grows = [[LOG_IO.string, 'the Logger StringIO buffer String'], [LATENCIES_MS, 'LogBufferApp::LATENCIES_MS Array of Integers']]
  def true_leaks = 2
end
