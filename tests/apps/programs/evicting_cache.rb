# frozen_string_literal: true
#
# evicting_cache.rb - a Rack search API behind a per-client rate limiter whose
# buckets are never expired: every new client (IP) adds a Bucket that stays.
# The leak's holder is RateLimiter.@buckets. Benign, and the trap: search
# results cached in an ActiveSupport::Cache::MemoryStore capped by size (it
# prunes to 75% when full, so its entry count wanders: 147 -> 141 -> 152, and
# untraced its @data Hash no longer has the same first key from dump to dump),
# and a ring buffer of the last 100 slow queries that fills up between the
# dumps (about 47 -> 94 -> 100, by the seed). Neither may be called a leak.

require 'rack'
require 'rack/mock'
require 'active_support'
require 'active_support/cache'

class EvictingCacheApp < LeakyApp
  register 'evicting_cache'

  Bucket = Struct.new(:client, :tokens, :refilled_at)
  SlowQuery = Struct.new(:query, :ms, :at)

  # one Bucket per client, never expired (the bug: clients come and go)
  class RateLimiter
    attr_reader :buckets

    def initialize = (@buckets = {})

    def allow?(client)
      bucket = (@buckets[client] ||= Bucket.new(client.dup, 10, 0))
      bucket.tokens -= 1
      bucket.tokens.positive?
    end
  end

  # the last CAP slow queries, oldest dropped
  class SlowLog
    CAP = 100
    attr_reader :entries

    def initialize = (@entries = [])

    def add(entry)
      @entries << entry
      @entries.shift while @entries.size > CAP
    end
  end

  LIMITER = RateLimiter.new
  RESULTS = ActiveSupport::Cache::MemoryStore.new(size: 96 * 1024)
  SLOW = SlowLog.new

  APP = lambda do |env|
    req = Rack::Request.new(env)
    return [429, {}, ['slow down']] unless LIMITER.allow?(req.ip)

    query = req.params['q']
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    hits = RESULTS.fetch("search/#{query}") { Array.new(8) { |i| { 'id' => i, 'title' => "#{query} result #{i}" } } }
    SLOW.add(SlowQuery.new(query, Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, started)) if req.params['slow']
    [200, { 'content-type' => 'text/plain' }, [hits.map { |h| h['title'] }.join("\n")]]
  end

  def description = 'Rack search API with a rate limiter that never expires its per-client buckets, next to a size-capped MemoryStore and a ring buffer of slow queries'
  def requests = 50

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def warm_up
    super
    SLOW.entries.clear # a deploy starts the slow log afresh: it fills up during the dumps
  end

  def iteration(iter)
    requests.times do |i|
      query = "q#{rand(400)}" # a workload: most queries once, some again
      slow = rand < 0.95 ? '&slow=1' : ''
      res = @mock.get("/search?q=#{query}#{slow}", 'REMOTE_ADDR' => "10.#{iter + 10}.#{i / 250}.#{i % 250}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = LIMITER.buckets
  def holder_what = 'EvictingCacheApp::LIMITER (RateLimiter) @buckets Hash (client IP => Bucket)'
  def true_leaks = 1

  def bounded
    [['EvictingCacheApp::RESULTS MemoryStore @data Hash (pruned at 96 KiB)', RESULTS.instance_variable_get(:@data)],
     ['EvictingCacheApp::SLOW ring buffer of the last 100 slow queries', SLOW.entries, SlowLog::CAP]]
  end
end
