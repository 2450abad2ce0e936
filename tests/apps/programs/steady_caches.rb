# frozen_string_literal: true
#
# steady_caches.rb - a LEAK-FREE Rack service (issue 41: 0 leak rows, on every
# seed). Everything it keeps is bounded: a size-capped ActiveSupport
# MemoryStore (as `Rails.cache`) whose dashboard entry is rebuilt, a grown copy
# written over the old one on every request, while the other entries turn over
# at the cap; a memo in an ObjectSpace::WeakMap (its values die with their
# requests); a fixed pool of 4 connections checked out and in; a module-level
# lookup table built lazily on the first export request (between A and B) and
# never again; and a per-thread buffer reused. Every one of these was read as a
# leak row by an earlier heapleak in some phase of the workload.

require 'rack'
require 'rack/mock'
require 'active_support'
require 'active_support/cache'

class SteadyCachesApp < LeakyApp
  register 'steady_caches'

  Connection = Struct.new(:id, :queries, :last_sql)
  Dashboard = Struct.new(:visits, :top_paths, :generated_at)

  # a fixed pool: connections made at boot, checked out and in (bounded)
  class Pool
    attr_reader :idle

    def initialize(size) = (@idle = Array.new(size) { |i| Connection.new(i, 0, nil) })

    def with
      conn = @idle.pop
      yield conn
    ensure
      @idle.push(conn) if conn
    end
  end

  # built on first use (the first export, between A and B), then only read
  module Exporters
    def self.table
      @table ||= %w[csv json xml yaml tsv].to_h { |f| [f, "application/#{f}".freeze] }
    end
  end

  CACHE = ActiveSupport::Cache::MemoryStore.new(size: 64 * 1024)
  POOL = Pool.new(4)
  MEMO = ObjectSpace::WeakMap.new

  APP = lambda do |env|
    req = Rack::Request.new(env)
    path = req.path
    # a grown copy of the dashboard each request, capped at the last 20 paths
    dash = CACHE.read('dashboard') || Dashboard.new(0, [], 0.0)
    CACHE.write('dashboard', Dashboard.new(dash.visits + 1, (dash.top_paths + [path.dup]).last(20), Time.now.to_f))
    page = CACHE.fetch("page#{req.params['p']}") { "<li>#{req.params['p']}</li>" * 20 }
    POOL.with { |c| c.queries += 1; c.last_sql = "SELECT * FROM pages WHERE id = #{req.params['p'].to_i}" }
    key = +"render:#{req.params['p']}"
    MEMO[key] = page.upcase # dies with the request's key
    buf = (Thread.current[:render_buffer] ||= String.new(capacity: 8192))
    buf.clear
    buf << page
    type = req.params['export'] ? Exporters.table.fetch(req.params['export'], 'text/plain') : 'text/html'
    [200, { 'content-type' => type }, [buf.dup]]
  end

  def description = 'leak-free: a size-capped MemoryStore with a dashboard entry rebuilt per request, a WeakMap memo, a fixed connection pool, a lazy table, a reused buffer'
  def requests = 60

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      export = iter >= 2 && i.zero? ? '&export=csv' : ''
      res = @mock.get("/pages/#{i % 9}?p=#{rand(300)}#{export}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = nil
  def holder_what = 'nothing leaks'
  def true_leaks = 0
  def bounded = [['SteadyCachesApp::POOL idle connections (4)', POOL.idle]]
end
