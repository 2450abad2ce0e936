# frozen_string_literal: true

# A leak in the Ruby heap: an audit log that keeps every order it saw, each a
# Hash of Strings (the bytes are the objects' own: slots, string buffers, hash
# tables), 60,000 orders a phase.
module MemoryPrograms
  module RubyHeapLeak
    AUDIT_LOG = []

    module_function

    def phase(number)
      60_000.times do |i|
        AUDIT_LOG << { "id" => "order-#{number}-#{i}", "customer" => "customer #{i % 977} of the shop",
                       "lines" => Array.new(4) { |k| "sku-#{k}-#{i} x #{k + 1} at #{(i % 90) + 10}.99 EUR" } }
      end
    end
  end
end
