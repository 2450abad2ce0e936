# frozen_string_literal: true
#
# event_bus.rb - an in-process event bus kept in a Struct in a constant
# (BUS = EventBus.new(handlers, history)). publish appends every event to
# BUS.history "for replay" and nothing trims it: the history Array is the holder.
# Next to it, sessions are cached in an ObjectSpace::WeakMap keyed by the request
# token: entries die with their requests (bounded, but the WeakMap leaves finalizer
# tables behind). Benign: the handlers Hash filled at boot, transient payloads.

require 'rack'
require 'rack/mock'

class EventBusApp < LeakyApp
  register 'event_bus'

  EventBus = Struct.new(:handlers, :history)
  Event = Struct.new(:name, :payload, :at)
  Session = Struct.new(:token, :user, :roles)
  BUS = EventBus.new({}, [])
  SESSIONS = ObjectSpace::WeakMap.new

  def self.publish(name, payload)
    event = Event.new(name, payload, Process.clock_gettime(Process::CLOCK_MONOTONIC))
    BUS.history << event # the bug: history for replay, never trimmed
    BUS.handlers.fetch(name, []).each { |h| h.call(event) }
  end

  APP = lambda do |env|
    req = Rack::Request.new(env)
    token = +"tok-#{req.params['user']}-#{req.params['n']}"
    session = (SESSIONS[token] ||= Session.new(token, req.params['user'], %w[reader]))
    EventBusApp.publish('order.created', { 'user' => session.user, 'sku' => req.params['sku'], 'qty' => req.params['n'].to_i })
    [201, { 'content-type' => 'text/plain' }, ['created']]
  end

  def description = 'event bus Struct in a constant keeping every published event, next to a WeakMap session cache'

  def boot
    BUS.handlers['order.created'] = [->(e) { e.payload['qty'] * 2 }, ->(e) { e.name.size }]
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.post("/orders?user=u#{i % 7}&n=#{iter.abs * 1000 + i}&sku=SKU-#{iter}-#{i}")
      raise "POST failed: #{res.status}" unless res.status == 201
    end
  end

  def holder = BUS.history
  def holder_what = 'EventBusApp::BUS (EventBus Struct) .history Array'
  def bounded = [['EventBusApp::BUS.handlers Hash', BUS.handlers]]
end
