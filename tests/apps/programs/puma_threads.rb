# frozen_string_literal: true
#
# puma_threads.rb - a Rack service served over real HTTP by Debian's Puma 5.6
# (Puma::Server in this process, a pool of 4 threads, requests from client
# threads with Net::HTTP). What the framework creates once must not be a
# leak row (issue 25, defect 10): each pool thread builds its per-thread
# report registry (formatters, a template Hash, a buffer) on its first
# /reports request, and a reaper thread builds its Fiber and state on its
# first tick, all between A and B; their holders (Threads alive since boot)
# do not grow from B to C. The leak: a middleware keeping every request's
# stats in STATS, never trimmed: row 1.

require 'puma'
require 'puma/server'
require 'puma/events'
require 'net/http'
require 'rack'

class PumaThreadsApp < LeakyApp
  register 'puma_threads'

  POOL = 4
  RequestStat = Struct.new(:path, :status, :thread, :at, :agent)
  STATS = [] # the bug: never trimmed

  # keeps every request's stats (the leak)
  class StatsMiddleware
    def initialize(app) = (@app = app)

    def call(env)
      status, headers, body = @app.call(env)
      STATS << RequestStat.new(env['PATH_INFO'].dup, status, Thread.current.name.to_s.dup, Time.now.to_f, env['HTTP_USER_AGENT'].to_s.dup)
      [status, headers, body]
    end
  end

  # per-thread state built on a thread's first /reports request (as Rails' per-thread registries)
  def self.registry
    Thread.current[:report_registry] ||= {
      formatters: %w[csv json html txt xml].to_h { |f| [f, proc { |rows| rows.map { |r| "#{f}:#{r}" }.join(',') }] },
      templates: (1..20).to_h { |i| ["report_#{i}", "<h1>Report #{i}</h1>" * 4] },
      buffer: String.new(capacity: 4096),
    }
  end

  ENDPOINT = lambda do |env|
    case env['PATH_INFO']
    when '/reports'
      reg = PumaThreadsApp.registry
      [200, { 'content-type' => 'text/plain' }, [reg[:formatters]['csv'].call([1, 2, 3])]]
    else
      [200, { 'content-type' => 'text/plain' }, ['ok']]
    end
  end

  def requests = 96

  def boot
    @server = Puma::Server.new(StatsMiddleware.new(ENDPOINT), Puma::Events.null,
                               min_threads: POOL, max_threads: POOL, queue_requests: false)
    @port = @server.add_tcp_listener('127.0.0.1', 0).addr[1]
    @server.run
    @ticks = Queue.new
    # a reaper: wakes on each tick; its Fiber and state are made on its first run
    @reaper = Thread.new do
      state = nil
      while @ticks.pop
        state ||= { fiber: Fiber.new { loop { Fiber.yield(:reaped) } }, seen: Hash.new(0), started: Time.now.to_f }
        state[:fiber].resume
        state[:seen][:ticks] += 1
      end
    end
    @reaper.name = 'reaper'
  end

  # /reports and the reaper's ticks start with iteration 2, the one between A and B
  # (the driver dumps A after iteration 1)
  def iteration(iter)
    serve(iter, iter >= 2 ? %w[/health /reports] : %w[/health])
    return unless iter >= 2

    @ticks << iter
    sleep 0.05 until @ticks.empty? && @reaper.status == 'sleep'
  end

  # `requests` requests from POOL client threads at once (so every pool thread serves)
  def serve(iter, paths)
    clients = Array.new(POOL) do |c|
      Thread.new do
        (requests / POOL).times do |i|
          Net::HTTP.start('127.0.0.1', @port) do |http|
            http.get(paths[(i + c) % paths.size], 'User-Agent' => "client-#{iter}-#{c}", 'Connection' => 'close')
          end
        end
      end
    end
    clients.each(&:join)
    sleep 0.1 # the pool threads go back to waiting
  end

  def description = 'Puma 5.6 thread pool: per-thread registries made on a pool thread\'s first /reports request and a reaper\'s Fiber on its first tick (made once), a middleware keeping every request\'s stats (the leak)'
  def holder = STATS
  def holder_what = 'PumaThreadsApp::STATS, a request-stats Array never trimmed'
  def true_leaks = 1

  # truth self-check: what is made once is made between A and B
  def at_dump(name)
    made = pool_threads.count { |t| t[:report_registry] }
    want = name == 'A' ? 0 : POOL
    raise "at #{name}: #{made} pool threads have a registry, want #{want}" unless made == want
  end

  def pool_threads = @server.instance_variable_get(:@thread_pool).instance_variable_get(:@workers)
  def made_once = [[@reaper, 'the reaper Thread (its Fiber made on its first tick)'],
                   *pool_threads.map { |t| [t, 'a Puma pool thread (its registry made on its first /reports)'] }]
end
