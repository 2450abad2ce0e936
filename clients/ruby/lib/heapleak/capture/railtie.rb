# frozen_string_literal: true

require "rails/railtie"
require_relative "rack"

# Rails: `require "heapleak/capture/railtie"` (or `gem "heapleak-capture",
# require: "heapleak/capture/railtie"` in the Gemfile). When
# HEAPLEAK_CAPTURE_DIR is set at boot, capture is on and every request is
# counted; otherwise nothing is added.
module Heapleak
  module Capture
    class Railtie < ::Rails::Railtie
      initializer "heapleak_capture.enable" do |app|
        Capture.enable_from_env!
        app.middleware.insert(0, RequestCounter) if Capture.enabled?
      end
    end
  end
end
