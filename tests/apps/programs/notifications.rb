# frozen_string_literal: true
#
# notifications.rb - a Sinatra shop API that subscribes to an
# ActiveSupport::Notifications event inside every request (a classic "subscribe in
# a before filter" bug). Each subscriber keeps its block, and the block keeps the
# request's Sinatra instance with its env, params and response. The leak's holder
# is the Fanout's subscriber Array for "render.shop". Benign: a product LRU that
# evicts at its cap, per-request garbage, a template cache filled at warm-up.

require 'sinatra/base'
require 'active_support'
require 'active_support/notifications'
require 'rack/mock'

class NotificationsApp < LeakyApp
  register 'notifications'

  class LRU
    def initialize(cap) = (@cap = cap; @h = {})
    def fetch(k)
      return @h[k] = @h.delete(k) if @h.key?(k)
      @h[k] = yield
      @h.delete(@h.first[0]) while @h.size > @cap
      @h[k]
    end
    attr_reader :h
  end

  PRODUCTS = LRU.new(25)
  TEMPLATES = {}

  class Shop < Sinatra::Base
    set :environment, :production
    set :show_exceptions, false

    before do
      # the bug: one subscriber per request, never unsubscribed
      ActiveSupport::Notifications.subscribe('render.shop') do |_name, _start, _finish, _id, payload|
        @rendered = payload[:template]
      end
    end

    get '/products/:id' do
      id = params[:id].to_i
      product = PRODUCTS.fetch(id) { { id: id, name: "Product #{id}", price: (id * 7) % 100, tags: %w[a b c].map { |t| "#{t}#{id}" } } }
      tpl = (TEMPLATES[:product] ||= '<h1>%<name>s</h1><p>%<price>d</p>')
      ActiveSupport::Notifications.instrument('render.shop', template: :product) do
        format(tpl, name: product[:name], price: product[:price])
      end
    end
  end

  def description = 'Sinatra app subscribing to ActiveSupport::Notifications in a before filter on every request'

  def boot
    @mock = Rack::MockRequest.new(Shop)
    @mock.get('/products/0') # the first subscriber creates the Array that then grows
  end

  def iteration(iter)
    @seen = []
    requests.times do |i|
      res = @mock.get("/products/#{(iter.abs * 1000 + i) % 60}")
      raise "GET failed: #{res.status}" unless res.status == 200
      @seen << res.body.bytesize
    end
    @seen = nil
  end

  def fanout = ActiveSupport::Notifications.notifier
  def holder = fanout.instance_variable_get(:@string_subscribers)['render.shop']
  def holder_what = "ActiveSupport::Notifications::Fanout@string_subscribers['render.shop'] Array"
  # instrument caches the subscriber list per event name (a copy of the holder, replaced
  # on every subscribe): in B it is a second container of the same subscribers
  def at_dump(name)
    @listeners_b = Addr.of(fanout.instance_variable_get(:@listeners_for)['render.shop']) if name == 'B'
  end

  def root_accept = [@listeners_b]
  def bounded = [['NotificationsApp::PRODUCTS LRU Hash (cap 25)', PRODUCTS.h]]
end
