# frozen_string_literal: true
#
# symbol_cache.rb - a Rack reporting endpoint whose formatter is memoized in a
# class-level Hash keyed by user input turned into a Symbol (params['sort'].to_sym):
# every new sort key adds a dynamic Symbol and a Formatter that is never evicted.
# The leak's holder is ReportFormatter.@formatters. Benign: labels translated with
# I18n (loaded once), a row LRU at its cap, a buffer pool that grows once (iteration 2).

require 'rack'
require 'rack/mock'
require 'i18n'

class SymbolCacheApp < LeakyApp
  register 'symbol_cache'

  class ReportFormatter
    attr_reader :key, :columns, :header

    def initialize(key)
      @key = key
      @columns = %w[id name total].map { |c| "#{c}:#{key}" }
      @header = I18n.t('report.header', column: key.to_s)
    end

    def self.for(key)
      @formatters ||= {}
      @formatters[key.to_sym] ||= new(key.to_sym) # the bug: user input becomes a Symbol and a cache key
    end

    def self.formatters = @formatters
    def format(rows) = rows.map { |r| @columns.map { |c| r[c.split(':').first] }.join(',') }.join("\n")
  end

  class BufferPool
    attr_reader :buffers
    def initialize = (@buffers = [])
    def grow_once = (@buffers << String.new(capacity: 4096) if @buffers.size < 2)
  end

  ROWS = {}
  POOL = BufferPool.new

  APP = Rack::Builder.new do
    use Rack::ContentLength
    run(lambda do |env|
      req = Rack::Request.new(env)
      id = req.params['page'].to_i
      ROWS.delete(ROWS.first[0]) if ROWS.size >= 20 && !ROWS.key?(id)
      rows = (ROWS[id] ||= Array.new(5) { |i| { 'id' => i, 'name' => "row #{id}-#{i}", 'total' => i * id } })
      body = ReportFormatter.for(req.params['sort']).format(rows)
      [200, { 'content-type' => 'text/csv' }, [body]]
    end)
  end.to_app

  def description = 'Rack endpoint memoizing a formatter per user-supplied sort key in a class-level Hash keyed by to_sym'

  def boot
    I18n.available_locales = [:en]
    I18n.backend.store_translations(:en, report: { header: 'Report by %{column}' })
    @mock = Rack::MockRequest.new(APP)
    @mock.get('/report?sort=id&page=0')
  end

  def iteration(iter)
    POOL.grow_once if iter == 2
    requests.times do |i|
      sort = iter.positive? ? "col_#{iter}_#{i}" : %w[id name total][i % 3] # attacker-chosen keys only after warm-up
      res = @mock.get("/report?sort=#{sort}&page=#{(iter.abs * 7 + i) % 40}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = ReportFormatter.formatters
  def holder_what = 'SymbolCacheApp::ReportFormatter.@formatters Hash (Symbol => ReportFormatter)'
  def benign = [[POOL.buffers[1], 'BufferPool grew to its max of 2 buffers in iteration 2']]
  def bounded = [['SymbolCacheApp::ROWS Hash (cap 20)', ROWS], ['SymbolCacheApp::POOL buffers (max 2)', POOL.buffers]]
end
