# frozen_string_literal: true

# Puma in cluster mode with heapleak-capture: every worker opens its own
# control socket when it boots (HEAPLEAK_CAPTURE_DIR turns capture on).
require "heapleak/capture/puma"

workers 2
threads 2, 4
bind "tcp://127.0.0.1:#{ENV.fetch('SHOP_PORT')}"
pidfile ENV.fetch("SHOP_PIDFILE")
rackup File.expand_path(ENV.fetch("SHOP_RACKUP", "shop.ru"), __dir__)
Heapleak::Capture::Puma.install(self)
