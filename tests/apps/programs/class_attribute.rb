# frozen_string_literal: true
#
# class_attribute.rb - a background-job layer on ActiveSupport::Callbacks whose
# jobs remember every idempotency key they ran in a `class_attribute` Hash
# ("so a retried job is skipped"), and nothing prunes it. ActiveSupport 6.1's
# class_attribute keeps the value only in the block of a singleton method
# (`redefine_singleton_method(:name) { value }`), so the Hash is reached from
# the job class only through the class's singleton class: an object's link to
# its (singleton) class is the dump's `class` field, not a reference. The
# holder is that Hash. Benign: a retry queue capped at 20, per-job garbage.

require 'active_support'
require 'active_support/callbacks'
require 'active_support/core_ext/class/attribute'

class ClassAttributeApp < LeakyApp
  register 'class_attribute'

  Receipt = Struct.new(:key, :job, :finished_at, :summary)

  class Job
    include ActiveSupport::Callbacks
    define_callbacks :perform
    class_attribute :completed, instance_writer: false, default: {}
    class_attribute :retries, instance_writer: false, default: []

    set_callback :perform, :around, :remember_key

    def initialize(key, payload)
      @key = key
      @payload = payload
    end

    def run = run_callbacks(:perform) { perform }

    private

    def remember_key
      return if completed.key?(@key)

      summary = yield
      completed[@key] = Receipt.new(@key, self.class.name, Time.now.to_f, summary) # the bug: never pruned
      retries << @key if @key.end_with?('7')
      retries.shift while retries.size > 20
    end
  end

  class ReportJob < Job
    def perform
      rows = @payload.fetch(:rows).map { |r| { 'sku' => "SKU-#{r}", 'total' => r * 3 } }
      "#{rows.size} rows, #{rows.sum { |r| r['total'] }} total"
    end
  end

  def description = 'ActiveSupport 6.1 class_attribute Hash (reached only through the job class\'s singleton class) keeping a receipt per job'

  def iteration(iter)
    requests.times do |i|
      ReportJob.new("report-#{iter}-#{i}", rows: (1..(i % 5 + 1)).to_a).run
    end
  end

  def holder = ReportJob.completed
  def holder_what = 'ClassAttributeApp::Job.completed class_attribute Hash (the block of a singleton method)'
  def bounded = [['ClassAttributeApp::Job.retries class_attribute Array (cap 20)', Job.retries]]
end
