# frozen_string_literal: true

require_relative "../capture"

# Counts requests for series taken "every N requests": `use
# Heapleak::Capture::RequestCounter` in config.ru (the Railtie inserts it).
module Heapleak
  module Capture
    class RequestCounter
      def initialize(app)
        @app = app
      end

      def call(env)
        @app.call(env)
      ensure
        Capture.tick
      end
    end
  end
end
