# frozen_string_literal: true
#
# instance_subscribers.rb - a Rack app built per request (`run ->(env) {
# ShopApp.new.call(env) }`) whose constructor subscribes to
# ActiveSupport::Notifications with a block that captures the instance to keep
# request timings in its @timings. Nothing unsubscribes: the Fanout's subscriber
# Array keeps every ShopApp ever built, and every instrumented request appends
# a Timing to the @timings of each of them, the hundreds built before dump A
# included. One cause, one leak (issue 41, defect 5): the subscriber Array is
# the holder, and the old instances' @timings grow with it; they are not a
# leak of their own. A second, smaller leak: a class-level price cache keyed by
# SKU, never evicted, which must stay the second row.

require 'rack'
require 'rack/mock'
require 'active_support'
require 'active_support/notifications'

class InstanceSubscribersApp < LeakyApp
  register 'instance_subscribers'

  Timing = Struct.new(:path, :ms, :at)
  Price = Struct.new(:sku, :cents, :currency, :fetched_at)

  # prices by SKU, never evicted (the second leak)
  class PriceCache
    class << self
      attr_reader :prices

      def fetch(sku) = (@prices[sku] ||= Price.new(sku.dup, sku.hash.abs % 10_000, 'EUR', Time.now.to_f))
    end
    @prices = {}
  end

  # built per request; subscribes itself for its timings (the bug)
  class ShopApp
    attr_reader :timings

    def initialize
      @timings = []
      ActiveSupport::Notifications.subscribe('process.shop') do |_name, start, finish, _id, payload|
        @timings << Timing.new(payload[:path], ((finish - start) * 1000).round(3), finish.to_f)
      end
    end

    def call(env)
      req = Rack::Request.new(env)
      ActiveSupport::Notifications.instrument('process.shop', path: req.path) do
        price = PriceCache.fetch(req.params['sku'])
        [200, { 'content-type' => 'text/plain' }, ["#{price.sku}: #{price.cents}"]]
      end
    end
  end

  APP = ->(env) { ShopApp.new.call(env) }

  def description = 'Rack app built per request, each instance subscribing a block capturing itself to ActiveSupport::Notifications (its @timings fed by every later request), and a price cache never evicted'
  def requests = 30

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.get("/products/#{i % 7}?sku=sku-#{iter.abs}-#{rand(1_000_000)}-#{i}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def subscribers = ActiveSupport::Notifications.notifier.instance_variable_get(:@string_subscribers)['process.shop']
  def holder = subscribers
  def holder_what = "the ActiveSupport::Notifications Fanout's subscriber Array for 'process.shop'"
  # the subscribers (and the new ones' instances), every instance's timings (the walk does
  # not go through the old instances), and the price cache
  def leak_roots = [subscribers, *ObjectSpace.each_object(ShopApp).map(&:timings), PriceCache.prices]
  # the Fanout's per-name listener cache (rebuilt on each subscribe) holds the same subscribers
  def at_dump(name)
    @listeners_b = Addr.of(ActiveSupport::Notifications.notifier.instance_variable_get(:@listeners_for)['process.shop']) if name == 'B'
  end

  def root_accept = [@listeners_b]
  def true_leaks = 2
end
