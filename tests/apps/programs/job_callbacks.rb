# frozen_string_literal: true
#
# job_callbacks.rb - a job layer on ActiveSupport::Callbacks where `perform`
# registers a completion hook with `self.class.set_callback(:perform, :after)
# { ... }` ("notify the requester when this one is done"): every run adds a
# Callback (its Proc captures the job and its payload) to ReportJob's chain,
# forever. ActiveSupport 6.1 rebuilds the CallbackChain on every set_callback
# (a new chain, a new Array of Callbacks), so no container of the leak lives
# from A to C; what does is ReportJob's own `__callbacks` Hash (made once, by
# the class's first set_callback), a class_attribute whose value only the
# block of a singleton method of ReportJob holds: reached from the class only
# through its singleton class (the dump's `class` field). Benign: a per-kind
# run counter, per-job garbage.

require 'active_support'
require 'active_support/callbacks'

class JobCallbacksApp < LeakyApp
  register 'job_callbacks'

  class Job
    include ActiveSupport::Callbacks
    define_callbacks :perform

    RUNS = Hash.new(0) # runs per job kind: a few keys, bounded

    def initialize(id, payload)
      @id = id
      @payload = payload
    end

    def run = run_callbacks(:perform) { perform }
  end

  class ReportJob < Job
    set_callback :perform, :before, :count_run # ReportJob's own chain (its __callbacks Hash) from boot

    def perform
      rows = @payload.fetch(:rows).map { |r| { 'sku' => "SKU-#{r}", 'total' => r * 3 } }
      @summary = "#{rows.size} rows, #{rows.sum { |r| r['total'] }} total"
      # the bug: a hook per run on the class, not on this job
      self.class.set_callback(:perform, :after) { |job| job.notified = "#{@payload[:requester]}: #{@summary}" if job.equal?(self) }
    end

    attr_accessor :notified

    private

    def count_run = RUNS[self.class.name] += 1
  end

  def description = 'ActiveSupport::Callbacks: set_callback inside perform piles an :after hook per run on ReportJob (its __callbacks class_attribute Hash, reached through its singleton class)'

  def requests = 30

  def iteration(iter)
    requests.times do |i|
      ReportJob.new("report-#{iter}-#{i}", rows: (1..(i % 5 + 1)).to_a, requester: "user-#{i % 7}").run
    end
  end

  def holder = ReportJob.__callbacks
  def holder_what = "JobCallbacksApp::ReportJob's __callbacks class_attribute Hash (the block of a singleton method of ReportJob)"
  # the Hash keeps one key (:perform); what grows is the chain it holds, rebuilt (a new
  # object) on every set_callback: the holder's own size does not grow
  def holder_grows = false
  def true_leaks = 1
  def bounded = [['JobCallbacksApp::Job::RUNS per-kind run counter', Job::RUNS]]
end
