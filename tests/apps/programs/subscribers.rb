# frozen_string_literal: true
#
# subscribers.rb - a multi-tenant Rack service: one TenantApp per tenant, built
# at boot, each subscribed to an in-process instrumentation hub to keep its
# request timings "for the dashboard". Every request is published to every
# subscriber, and each TenantApp appends a Timing to its @timings Array, never
# trimmed: 200 old objects each gaining a few objects per request. One leak with
# 200 holders of one shape: explain must show it as one row (200 instances, their
# total), above a second, smaller leak (deprecation warnings kept in an Array),
# which is larger than any one @timings. Benign: per-request garbage.

require 'rack'
require 'rack/mock'

class SubscribersApp < LeakyApp
  register 'subscribers'

  Timing = Struct.new(:route, :ms, :status)

  # fans events out to its subscribers, in subscription order
  class Hub
    attr_reader :subscribers

    def initialize = (@subscribers = [])
    def subscribe(listener) = @subscribers << listener
    def publish(event, *args) = @subscribers.each { |s| s.on_event(event, *args) }
  end

  # one per tenant, alive for the life of the process
  class TenantApp
    attr_reader :name, :timings

    def initialize(name)
      @name = name
      @timings = []
    end

    def on_event(_event, route, ms, status)
      @timings << Timing.new(route, ms, status) # the bug: every request of every tenant, kept forever
    end
  end

  HUB = Hub.new
  TENANTS = Array.new(200) { |i| TenantApp.new("tenant-#{i}") }.each { |t| HUB.subscribe(t) }
  WARNINGS = [] # the second leak: each deprecated call keeps its message and backtrace line

  APP = lambda do |env|
    req = Rack::Request.new(env)
    tenant = TENANTS[req.params['t'].to_i % TENANTS.size]
    WARNINGS << "DEPRECATION: #{req.path} called with legacy param 'format' by #{tenant.name} #{'.' * 700}" if req.params['format']
    HUB.publish('request.done', req.path, req.params['t'].to_i % 97, 200)
    [200, { 'content-type' => 'text/plain' }, ["hello #{tenant.name}"]]
  end

  def description = '200 tenant apps subscribed to an instrumentation hub, each keeping every request timing in @timings'

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.get("/dashboard/#{i % 5}?t=#{iter.abs * 1000 + i}&format=json")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = TENANTS.first.timings
  def holder_what = 'SubscribersApp::TENANTS[0] (TenantApp) @timings Array, one of 200 alike'
  def leak_roots = [*TENANTS.map(&:timings), WARNINGS]
  def first_row_accept = TENANTS.map(&:timings)
  def true_leaks = 2
end
