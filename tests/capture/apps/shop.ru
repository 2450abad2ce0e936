# frozen_string_literal: true

# A small Rack shop served by Puma: each order is kept in ORDER_AUDIT and
# never dropped (the leak); product pages build and drop their strings.
require "json"
require "heapleak/capture/rack"

module OrderAudit
  ENTRIES = []

  def self.record(order)
    ENTRIES << { id: order[:id], sku: order[:sku], note: "order #{order[:id]} for #{order[:sku]}" } # LEAK
  end
end

class Shop
  def call(env)
    if env["PATH_INFO"].start_with?("/order")
      order = { id: rand(1_000_000), sku: "sku-#{rand(100)}" }
      OrderAudit.record(order)
      [200, { "content-type" => "application/json" }, [JSON.generate(order)]]
    else
      page = Array.new(20) { |i| "product #{i} #{rand}" }.join("\n")
      [200, { "content-type" => "text/plain" }, [page]]
    end
  end
end

use Heapleak::Capture::RequestCounter
run Shop.new
