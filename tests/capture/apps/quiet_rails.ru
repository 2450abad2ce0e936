# frozen_string_literal: true

# A one-file Rails app that keeps nothing, wired through the gem's Railtie
# (which counts requests). Captured by tests/capture/quiet_series_e2e.rb.
require "rails"
require "action_controller/railtie"
require "heapleak/capture/railtie"

class QuietRails < Rails::Application
  config.eager_load = false
  config.logger = Logger.new(nil)
  config.secret_key_base = "0" * 64
  config.hosts.clear
  routes.append do
    root to: proc { [200, { "content-type" => "text/plain" }, [Array.new(20) { |i| "line #{i} #{rand}" }.join("\n")]] }
  end
end
QuietRails.initialize!
run QuietRails
