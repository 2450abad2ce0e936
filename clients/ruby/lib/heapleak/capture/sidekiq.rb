# frozen_string_literal: true

require_relative "../capture"

# Sidekiq: in the server's configuration
#   require "heapleak/capture/sidekiq"
#   Sidekiq.configure_server { |config| Heapleak::Capture::Sidekiq.install(config) }
# Capture is on when HEAPLEAK_CAPTURE_DIR is set; every job is counted, so a
# series can wait for N jobs. Sidekiq >= 7.2.2 calls Process.warmup at boot
# (it compacts the heap): take series after boot, and the manifests' GC
# compact_count tells if a compaction came between two dumps.
module Heapleak
  module Capture
    module Sidekiq
      class JobCounter
        def call(_job, _payload, _queue)
          yield
        ensure
          Capture.tick
        end
      end

      def self.install(config, **options)
        options.empty? ? Capture.enable_from_env! : Capture.enable!(**options)
        config.server_middleware { |chain| chain.add JobCounter }
        Capture
      end
    end
  end
end
