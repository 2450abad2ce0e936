# frozen_string_literal: true
#
# request_closures.rb - a Rack API that registers an "after commit" hook per
# request: a lambda capturing the request's context, kept in the hook
# registry's Array and never run or removed (the leak; its holder is
# Hooks.registry's @callbacks). Each request also queues a job (another
# closure over the same context) in a global queue that the next batch
# drains: in B the queue, nearer the GC roots than the registry, is the
# shortest path to every context, but it is gone by C. The holder is what
# keeps the contexts alive in C, not B's queue of jobs.

require 'rack'
require 'rack/mock'

$audit_jobs = [] # rubocop:disable Style/GlobalVars -- drained by the next batch

class RequestClosuresApp < LeakyApp
  register 'request_closures'

  RequestContext = Struct.new(:request_id, :path, :user, :params)

  module Hooks
    # callbacks to run "after the transaction commits": nothing ever does
    class Registry
      attr_reader :callbacks

      def initialize = (@callbacks = [])
      def after_commit(&block) = @callbacks << block
    end

    def self.registry = (@registry ||= Registry.new)
  end

  APP = lambda do |env|
    req = Rack::Request.new(env)
    ctx = RequestContext.new(env['HTTP_X_REQUEST_ID'].dup, req.path.dup, req.params['user'].dup, req.params.dup)
    Hooks.registry.after_commit { warn("committed #{ctx.request_id} #{ctx.path}") } # the bug
    $audit_jobs << -> { ctx.request_id.size + ctx.path.size } # rubocop:disable Style/GlobalVars
    [200, { 'content-type' => 'text/plain' }, ["ok #{ctx.request_id}"]]
  end

  def description = 'Rack API registering an after-commit hook per request that captures the request context, never run or removed; audit jobs over the same context queued for one batch'

  def boot
    Hooks.registry
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    $audit_jobs.each(&:call).clear # rubocop:disable Style/GlobalVars -- the previous batch's jobs
    requests.times do |i|
      res = @mock.get("/orders/#{i % 9}?user=u#{i % 5}", 'HTTP_X_REQUEST_ID' => "req-#{iter}-#{i}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = Hooks.registry.callbacks
  def holder_what = 'RequestClosuresApp::Hooks.@registry (Registry) @callbacks Array of Procs'
  def true_leaks = 1
end
