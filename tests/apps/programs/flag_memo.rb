# frozen_string_literal: true
#
# flag_memo.rb - a Rack API whose feature-flag helper memoizes every decision
# in a module-level Hash created on first use: `@seen ||= {}` on the module
# `Flags`, keyed by [flag, user]. The flag is flipped on after dump A (a deploy
# or a flag flip in production), so the Hash is born between A and B and then
# keeps growing (one Decision and its key per new user, never evicted). The
# holder is that new Hash, not the module that gained one instance variable
# once (issue 41, defect 1). Benign: a user-agent LRU at its cap, and an
# `@config ||= {...}` memo on the same module made once, also between A and B.

require 'rack'
require 'rack/mock'

class FlagMemoApp < LeakyApp
  register 'flag_memo'

  Decision = Struct.new(:flag, :user, :enabled, :reason)

  # the feature-flag helper: memoizes per (flag, user) forever (the bug)
  module Flags
    class << self
      attr_accessor :rollout_on
      attr_reader :seen

      def enabled?(flag, user)
        return false unless rollout_on

        @config ||= { 'new_checkout' => 30, 'dark_mode' => 50 } # made once: bounded
        @seen ||= {}
        @seen[[flag, user]] ||= begin
          pct = @config.fetch(flag, 0)
          Decision.new(flag, user.dup, user.hash % 100 < pct, "rollout #{pct}% for #{user}")
        end.enabled
      end
    end
  end

  # the last 64 user agents seen (benign: at its cap)
  class AgentLru
    CAP = 64
    attr_reader :entries

    def initialize = (@entries = {})

    def touch(agent)
      @entries.delete(agent)
      @entries[agent] = agent.length
      @entries.shift while @entries.size > CAP
    end
  end

  AGENTS = AgentLru.new

  APP = lambda do |env|
    req = Rack::Request.new(env)
    user = req.params['user']
    AGENTS.touch(req.user_agent.to_s)
    checkout = Flags.enabled?('new_checkout', user) ? 'new' : 'old'
    [200, { 'content-type' => 'text/plain' }, ["#{checkout} checkout for #{user}"]]
  end

  def description = 'Rack API memoizing every feature-flag decision in Flags.@seen, a Hash created after the flag flip (between A and B) that keeps growing'
  def requests = 60

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    Flags.rollout_on = true if iter == 2 # flipped after dump A: the first call makes @seen
    requests.times do |i|
      user = "user-#{iter.abs}-#{rand(1_000_000)}-#{i}"
      res = @mock.get("/checkout?user=#{user}", 'HTTP_USER_AGENT' => "agent/#{rand(200)}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = Flags.seen
  def holder_born = 'B' # created between A and B: alive in B and C only
  def holder_what = 'FlagMemoApp::Flags @seen Hash ([flag, user] => Decision), created after A'
  def true_leaks = 1
  def bounded = [['FlagMemoApp::AGENTS user-agent LRU at its cap', AGENTS.entries, AgentLru::CAP]]
end
