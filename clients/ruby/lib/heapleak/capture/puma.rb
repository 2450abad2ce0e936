# frozen_string_literal: true

require_relative "rack"

# Puma: in config/puma.rb
#   require "heapleak/capture/puma"
#   Heapleak::Capture::Puma.install(self)   # capture on when HEAPLEAK_CAPTURE_DIR is set
# In cluster mode every worker opens its own socket (heapleak-WORKERPID.sock)
# when it boots; `use Heapleak::Capture::RequestCounter` in config.ru lets a
# series wait for N requests.
module Heapleak
  module Capture
    module Puma
      def self.install(dsl, **options)
        options.empty? ? Capture.enable_from_env! : Capture.enable!(**options)
        dsl.on_worker_boot { Capture.after_fork }
        Capture
      end
    end
  end
end
