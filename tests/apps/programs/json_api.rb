# frozen_string_literal: true
#
# json_api.rb - a catalog JSON API with ActiveSupport's JSON encoding loaded. Each
# iteration serves another page of the catalog: encoding a long String with
# ActiveSupport turns it into a shared string in place (its dump record changes),
# although it is the same object as before: the shared-string trap for
# precision. The real leak: every response is appended to AuditLog::ENTRIES, the
# holder. Benign: an ETag LRU at its cap and per-request garbage.

require 'active_support'
require 'active_support/json'
require 'active_support/core_ext/object/json'
require 'rack'
require 'rack/mock'

class JsonApiApp < LeakyApp
  register 'json_api'

  module AuditLog
    ENTRIES = []
    def self.record(path, status, bytes) = ENTRIES << { path: path, status: status, bytes: bytes, note: "served #{path}" }
  end

  Product = Struct.new(:id, :name, :description)
  CATALOG = Array.new(200) do |i|
    Product.new(i, "Product number #{i} with a long display name",
                "Description of product #{i}: long enough to live outside the object slot")
  end
  ETAGS = {}

  APP = lambda do |env|
    req = Rack::Request.new(env)
    page = req.params['page'].to_i
    items = CATALOG[page * 5, 5].map { |p| { 'id' => p.id, 'name' => p.name, 'description' => p.description } }
    body = { 'page' => page, 'items' => items }.to_json
    ETAGS[page] = body.hash.to_s(16)
    ETAGS.delete(ETAGS.first[0]) while ETAGS.size > 8
    AuditLog.record(req.path_info + "?page=#{page}", 200, body.bytesize) # the bug
    [200, { 'content-type' => 'application/json' }, [body]]
  end

  def description = 'JSON API with ActiveSupport JSON encoding (shared-string trap) and an audit log Array in a constant'

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  # warm-up serves page 0 only; iteration k serves pages of its own, so catalog
  # strings are first encoded (turned shared) between A and B
  def iteration(iter)
    requests.times do |i|
      page = iter.positive? ? (iter * 12 + i % 12) % 40 : 0
      res = @mock.get("/products?page=#{page}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = AuditLog::ENTRIES
  def holder_what = 'JsonApiApp::AuditLog::ENTRIES Array'
  def bounded = [['JsonApiApp::ETAGS Hash (cap 8)', ETAGS]]
end
