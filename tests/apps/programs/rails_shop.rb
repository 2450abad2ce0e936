# frozen_string_literal: true
#
# rails_shop.rb - a Rails 6.1 shop (Debian's railties, Active Record on sqlite3
# in memory, ActionController, routes) driven in-process through Rack. Its
# ApplicationController counts the SQL queries of each request with a
# before_action that subscribes to "sql.active_record" and never unsubscribes
# (start_query_counter): every request leaves a subscriber whose block keeps
# the controller with its request, params and response. The holder is
# Active Support's Fanout subscriber Array for "sql.active_record". Benign:
# Rails' own state (the connection pool, its reaper thread, per-thread
# registries, query caches filled on first use), a price LRU at its cap.

ENV['DATABASE_URL'] ||= 'sqlite3::memory:'
require 'rails'
require 'active_record/railtie'
require 'action_controller/railtie'
require 'rack/mock'

module RailsShop
  class Application < Rails::Application
    config.root = __dir__
    config.eager_load = true
    config.logger = Logger.new(nil)
    config.log_level = :fatal
    config.secret_key_base = 'heapleak-tests-apps-rails-shop' * 3
    config.hosts.clear
    config.active_support.deprecation = :silence
  end
end

class RailsShopApp < LeakyApp
  register 'rails_shop'

  PRICES = {}

  def description = 'Rails 6.1 app: a before_action subscribing to sql.active_record on every request, never unsubscribed'

  def boot
    RailsShop::Application.initialize!
    ActiveRecord::Schema.verbose = false
    ActiveRecord::Schema.define do
      create_table(:products) { |t| t.string :name; t.integer :price_cents; t.string :sku }
      create_table(:orders) { |t| t.integer :product_id; t.integer :quantity; t.string :email }
    end
    define_app
    RailsShop::Application.routes.draw do
      resources :products, only: %i[index show]
      resources :orders, only: %i[create]
    end
    20.times { |i| ::Product.create!(name: "Product #{i}", price_cents: 100 * i + 99, sku: "SKU-#{i}") }
    @mock = Rack::MockRequest.new(RailsShop::Application)
    @mock.get('/products/1') # the first subscriber creates the Array that then grows
  end

  def define_app
    Object.const_set(:Product, Class.new(ActiveRecord::Base) { has_many :orders })
    Object.const_set(:Order, Class.new(ActiveRecord::Base) { belongs_to :product })
    Object.const_set(:ApplicationController, Class.new(ActionController::API) do
      before_action :start_query_counter

      private

      # the bug: one subscriber per request, never unsubscribed
      def start_query_counter
        @queries = 0
        ActiveSupport::Notifications.subscribe('sql.active_record') { |*| @queries += 1 }
      end
    end)
    Object.const_set(:ProductsController, Class.new(ApplicationController) do
      def index = render(json: Product.order(:id).limit(5).map { |p| { id: p.id, name: p.name } })

      def show
        product = Product.find(params[:id])
        RailsShopApp::PRICES[product.id] = format('%.2f', product.price_cents / 100.0)
        RailsShopApp::PRICES.delete(RailsShopApp::PRICES.first[0]) while RailsShopApp::PRICES.size > 8
        render json: { id: product.id, name: product.name, price: RailsShopApp::PRICES[product.id] }
      end
    end)
    Object.const_set(:OrdersController, Class.new(ApplicationController) do
      def create
        order = Order.create!(product_id: params[:product_id], quantity: params[:quantity].to_i, email: params[:email])
        render json: { id: order.id, queries: @queries }, status: :created
      end
    end)
  end

  def iteration(iter)
    requests.times do |i|
      res = case i % 4
            when 0 then @mock.get('/products')
            when 3 then @mock.post('/orders', params: { product_id: 1 + i % 20, quantity: 1 + i % 3, email: "u#{iter}-#{i}@example.test" })
            else @mock.get("/products/#{1 + i % 20}")
            end
      raise "request #{i} failed: #{res.status} #{res.body[0, 200]}" unless res.successful?
    end
    # the shop's orders are deleted nightly: keep the table small between iterations
    ::Order.delete_all
  end

  def fanout = ActiveSupport::Notifications.notifier
  def holder = fanout.instance_variable_get(:@string_subscribers)['sql.active_record']
  def holder_what = "ActiveSupport::Notifications::Fanout@string_subscribers['sql.active_record'] Array"
  # instrument caches the subscriber list per event name (a copy of the holder,
  # replaced on every subscribe): in B it is a second container of the same subscribers
  def at_dump(name)
    @listeners_b = Addr.of(fanout.instance_variable_get(:@listeners_for)['sql.active_record']) if name == 'B'
  end
  def root_accept = [@listeners_b]
  def bounded = [['RailsShopApp::PRICES Hash (cap 8)', PRICES]]
end
