# frozen_string_literal: true
#
# metrics.rb - request metrics kept in concurrent-ruby maps. Counters are keyed by
# route and user id (high cardinality: one entry per user, never expired), and
# latencies by user agent; both grow with traffic. The bigger, the counters'
# Concurrent::Map backend Hash, is the holder; the two maps are the split case for
# `root`. Benign: a per-route Concurrent::Map with a fixed set of routes, an
# AtomicFixnum request counter, and per-request garbage.

require 'concurrent/map'
require 'concurrent/atomic/atomic_fixnum'
require 'rack'
require 'rack/mock'

class MetricsApp < LeakyApp
  register 'metrics'

  Sample = Struct.new(:count, :last_path, :tags)

  module Metrics
    COUNTERS = Concurrent::Map.new   # "route|user" => Sample: the leak
    LATENCY = Concurrent::Map.new    # user agent => Array of ms: a smaller leak
    ROUTES = Concurrent::Map.new     # route => Integer: bounded
    REQUESTS = Concurrent::AtomicFixnum.new

    def self.record(route, user, agent, ms)
      REQUESTS.increment
      ROUTES.compute(route) { |v| (v || 0) + 1 }
      s = COUNTERS.compute_if_absent("#{route}|#{user}") { Sample.new(0, nil, ["route:#{route}", "user:#{user}"]) }
      s.count += 1
      s.last_path = "/#{route}/#{user}"
      LATENCY.compute_if_absent(agent) { [] } << ms
    end
  end

  APP = lambda do |env|
    req = Rack::Request.new(env)
    route = req.path.split('/')[1]
    Metrics.record(route, req.params['user'], env['HTTP_USER_AGENT'], env['rack.ms'])
    [200, { 'content-type' => 'text/plain' }, ["ok #{route}"]]
  end

  def description = 'Rack app recording per-user metrics in Concurrent::Map (high cardinality, never expired)'

  def boot
    @mock = Rack::MockRequest.new(APP)
    iteration(0)
  end

  def iteration(iter)
    (requests * 2).times do |i|
      route = %w[cart orders search][i % 3]
      res = @mock.get("/#{route}?user=u#{iter}-#{i}", 'HTTP_USER_AGENT' => "agent/#{iter}.#{i % 5}", 'rack.ms' => i)
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def backend(map) = map.instance_variable_get(:@backend)
  def holder = backend(Metrics::COUNTERS)
  def holder_what = 'MetricsApp::Metrics::COUNTERS Concurrent::Map @backend Hash ("route|user" => Sample)'
  def leak_roots = [holder, backend(Metrics::LATENCY)]
  def bounded = [['MetricsApp::Metrics::ROUTES @backend Hash (3 routes)', backend(Metrics::ROUTES)]]

  # samples: the leaked values of iteration 2 in each map
  def split
    counters = holder.select { |k, _| k.include?('|u2-') }.values.first(2)
    latency = backend(Metrics::LATENCY).select { |k, _| k.start_with?('agent/2.') }.values.first(2)
    { containers: [
      { what: 'COUNTERS backend Hash', accept: [holder, Metrics::COUNTERS], samples: counters },
      { what: 'LATENCY backend Hash', accept: [backend(Metrics::LATENCY), Metrics::LATENCY], samples: latency },
    ] }
  end

  def root_samples = holder.select { |k, _| k.include?('|u2-') }.values.first(4)
end
