# frozen_string_literal: true
#
# prepended_modules.rb - a job runner whose tracing wraps the API client per job:
# `ApiClient.prepend(Module.new { define_method(:post) { ... super } })`, each
# module's method a closure over the job's Span (its Order and TraceContext). Prepending into a class is forever: ApiClient's ancestor chain grows
# by a module per job, and every Span, Order and TraceContext stays reachable
# through it (issue 41, defect 2: it read "code loaded", noise). The holder is
# ApiClient; the leak is code that keeps being made and the program data it
# holds. Benign: a per-endpoint latency Hash with a fixed set of keys, and a
# module included once at boot.

require 'securerandom'

class PrependedModulesApp < LeakyApp
  register 'prepended_modules'

  Order = Struct.new(:id, :customer, :lines, :total)
  TraceContext = Struct.new(:trace_id, :span_id, :sampled)
  Span = Struct.new(:name, :order, :context, :events)

  # the HTTP client of a payment API (no network: it answers in-process)
  class ApiClient
    def post(path, body) = { 'path' => path, 'status' => 201, 'bytes' => body.to_s.bytesize }
  end

  # per-endpoint latencies, a fixed set of keys (benign)
  LATENCY = Hash.new(0.0)

  # wraps the client for one job's span: the bug is prepending it into the class
  def self.traced(span)
    Module.new do
      define_method(:post) do |path, body|
        super(path, "#{body} trace=#{span.context.trace_id}")
      end
    end
  end

  def description = 'job runner prepending a tracing Module.new per job into ApiClient, each closure keeping its Span, Order and TraceContext'
  def requests = 25

  def iteration(iter)
    requests.times do |i|
      order = Order.new("ord-#{iter.abs}-#{i}", "customer-#{rand(10_000)}", Array.new(3) { |k| "sku-#{k}-#{rand(999)}" }, rand(100..9_999))
      span = Span.new('payment.charge', order, TraceContext.new(SecureRandom.hex(16), SecureRandom.hex(8), true), [])
      ApiClient.prepend(self.class.traced(span))
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      ApiClient.new.post('/charges', order.total)
      LATENCY[%w[charges refunds][i % 2]] += Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    end
  end

  def holder = ApiClient
  def holder_what = 'PrependedModulesApp::ApiClient (its ancestor chain: a module prepended per job)'
  # the walk does not enter classes: start it from the prepended modules (their methods' closures)
  def leak_roots = ApiClient.ancestors.take_while { |m| m != ApiClient }
  def holder_grows = false # a class: its own record keeps one superclass reference, the chain grows behind it
  def true_leaks = 1
end
