# frozen_string_literal: true
#
# compacted_cache.rb - a Rack API whose per-tenant report cache never evicts
# (ReportCache.@reports: a Report Struct with its rows per request), in a
# process that runs GC.compact between dumps B and C (a deploy hook, or
# auto_compact): part of the heap moves, the leaked reports among it, and an
# address diff loses them without a word (issue 41, defect 3). heapleak must
# say that objects moved and find every one again: by content, and the copies
# alike (the Report Structs, identical Strings) through their holders, C read
# again with its references. Benign:
# per-request garbage that leaves the heap fragmented, so compaction moves.

require 'rack'
require 'rack/mock'

class CompactedCacheApp < LeakyApp
  register 'compacted_cache'

  Report = Struct.new(:tenant, :title, :rows, :generated_at)

  # one Report per tenant and day, kept forever (the bug)
  class ReportCache
    class << self
      attr_reader :reports

      def fetch(key) = (@reports[key] ||= yield)
    end
    @reports = {}
  end

  APP = lambda do |env|
    req = Rack::Request.new(env)
    tenant = req.params['tenant']
    report = ReportCache.fetch("#{tenant}/#{req.params['day']}") do
      Report.new(tenant.dup, "Usage for #{tenant} on #{req.params['day']}", Array.new(4) { |i| "row #{i} of #{tenant}: #{rand(10_000)}" }, Time.now.to_f)
    end
    garbage = Array.new(30) { |i| "scratch #{i} #{tenant}" * 3 } # fragments the heap
    [200, { 'content-type' => 'text/plain' }, ["#{report.title} (#{report.rows.size} rows, #{garbage.size} scratch)"]]
  end

  def description = 'Rack API caching a report per tenant and day forever, with GC.compact between dumps B and C'
  def requests = 60

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.get("/reports?tenant=t#{rand(100_000)}&day=#{iter.abs}-#{i}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def compact_before = 'C' # the driver runs GC.compact before dump C
  def holder = ReportCache.reports
  def holder_what = 'CompactedCacheApp::ReportCache @reports Hash (tenant/day => Report), never evicted'
  def true_leaks = 1
end
