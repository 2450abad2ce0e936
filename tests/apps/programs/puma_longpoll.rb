# frozen_string_literal: true
#
# puma_longpoll.rb - a LEAK-FREE Rack service on Debian's Puma 5.6 (Puma::Server
# in this process, 4 pool threads, requests over HTTP) with a long-poll
# endpoint: a client opens /events between dumps A and B and is still waiting
# for its event when C is dumped, so a pool thread is serving that one request
# (its Puma::Client, env Hash, headers) in both B and C. That is one request's
# objects in a holder that did not grow, not a leak (issue 41, defect 6: it was
# a leak row). Other requests come and go; a per-path hit counter has a fixed
# set of keys. 0 leak rows, on every seed.

require 'puma'
require 'puma/server'
require 'puma/events'
require 'net/http'
require 'rack'

class PumaLongpollApp < LeakyApp
  register 'puma_longpoll'

  POOL = 4
  HITS = Hash.new(0) # a fixed set of paths: bounded
  EVENTS = Queue.new # the long poll waits here; nothing is pushed before C

  ENDPOINT = lambda do |env|
    case env['PATH_INFO']
    when '/events'
      event = EVENTS.pop # held open: the request is in flight in B and C
      [200, { 'content-type' => 'text/plain' }, [event.to_s]]
    else
      HITS[env['PATH_INFO']] += 1
      [200, { 'content-type' => 'text/plain' }, ["ok #{env['QUERY_STRING']}"]]
    end
  end

  def requests = 64

  def boot
    @server = Puma::Server.new(ENDPOINT, Puma::Events.null, min_threads: POOL, max_threads: POOL, queue_requests: false)
    @port = @server.add_tcp_listener('127.0.0.1', 0).addr[1]
    @server.run
  end

  def iteration(iter)
    start_long_poll if iter == 2 # between A and B; never answered before C
    clients = Array.new(POOL - 1) do |c|
      Thread.new do
        (requests / (POOL - 1)).times do |i|
          Net::HTTP.start('127.0.0.1', @port) do |http|
            http.get("/#{%w[health status items][i % 3]}?n=#{rand(10_000)}", 'User-Agent' => "client-#{iter}-#{c}", 'Connection' => 'close')
          end
        end
      end
    end
    clients.each(&:join)
    sleep 0.1 # the pool threads go back to waiting
  end

  def start_long_poll
    Thread.new do # a client elsewhere in a real deployment: only the VM holds it
      Net::HTTP.start('127.0.0.1', @port, read_timeout: 600) do |http|
        http.get('/events?since=0', 'User-Agent' => 'long-poller', 'Connection' => 'close')
      end
    end
    sleep 0.05 until EVENTS.num_waiting == 1
  end

  def description = 'leak-free: Puma pool threads, one serving a long-poll request from before B to after C, a fixed hit counter'
  def holder = nil
  def holder_what = 'nothing leaks'
  def true_leaks = 0
  def bounded = [['PumaLongpollApp::HITS (3 paths)', HITS]]
end
