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
        # before_fork runs in the master of cluster mode only: it forks the
        # workers and serves no request, which `list` and `status` say and a
        # series --every refuses (it would wait for nothing).
        dsl.before_fork { Capture.role = "puma master" }
        dsl.on_worker_boot do
          Capture.after_fork
          Capture.role = "puma worker"
        end
        Capture
      end
    end
  end
end
