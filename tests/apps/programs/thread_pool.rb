# frozen_string_literal: true
#
# thread_pool.rb - a price-quote service that hands each quote job to a Thread of
# its own and waits for it through a reply Queue; the worker then blocks on its
# own inbox Queue "for a cancel or an ack" that nobody ever sends, so it never
# finishes and is never joined. Each stuck Thread keeps its job: a Struct of
# Struct lines, a Hash of totals and BigDecimal prices. Nothing in the program
# holds the Threads: the VM does (the main Ractor's thread list), so the holder
# is that Ractor and its growth is its thread count. Benign: a quote LRU at its
# cap, per-request garbage.

require 'bigdecimal'
require 'bigdecimal/util'
require 'rack'
require 'rack/mock'

class ThreadPoolApp < LeakyApp
  register 'thread_pool'

  Line = Struct.new(:sku, :qty, :price)
  QuoteJob = Struct.new(:id, :account, :lines, :currency)
  QUOTES = {}

  # the bug: one Thread per job, left waiting on an inbox nobody writes to
  def self.quote_async(job)
    reply = Queue.new
    inbox = Queue.new
    Thread.new(job, reply, inbox) do |j, out, wait|
      totals = { 'net' => j.lines.sum { |l| l.price * l.qty }, 'lines' => j.lines.size, 'account' => j.account }
      totals['tax'] = (totals['net'] * BigDecimal('0.2')).round(2)
      out << totals
      wait.pop # waits for an ack that never comes
    end
    reply.pop
  end

  APP = lambda do |env|
    req = Rack::Request.new(env)
    id = req.params['id'].to_i
    lines = Array.new(3) { |k| Line.new("SKU-#{id}-#{k}", k + 1, "#{id % 97}.#{k}5".to_d) }
    totals = ThreadPoolApp.quote_async(QuoteJob.new(id, req.params['account'], lines, 'EUR'))
    QUOTES[id] = totals['net'].to_s('F')
    QUOTES.delete(QUOTES.first[0]) while QUOTES.size > 20
    [200, { 'content-type' => 'text/plain' }, [QUOTES[id]]]
  end

  def description = 'a Thread per quote job, each left blocked on its own Queue holding its job (Structs, a Hash, BigDecimals)'

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.get("/quote?id=#{iter.abs * 1000 + i}&account=acct-#{i % 5}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = Ractor.current
  def holder_what = "the main Ractor's thread list (Threads never finished, each blocked on its own Queue)"
  def bounded = [['ThreadPoolApp::QUOTES Hash (cap 20)', QUOTES]]
end
