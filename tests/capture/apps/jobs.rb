# frozen_string_literal: true

# A Sidekiq worker process with heapleak-capture: each ReportJob appends its
# rows to ReportCache::ROWS and never drops them (the leak), unless QUIET=1.
require "sidekiq"
require "heapleak/capture/sidekiq"

REDIS = { url: ENV.fetch("REDIS_URL") }.freeze

Sidekiq.configure_server do |config|
  config.redis = REDIS
  Heapleak::Capture::Sidekiq.install(config)
end
Sidekiq.configure_client { |config| config.redis = REDIS }

# QUIET=1: the job keeps nothing (tests/capture/quiet_series_e2e.rb).
QUIET = ENV["QUIET"] == "1"

module ReportCache
  ROWS = {}
end

class ReportJob
  include Sidekiq::Worker

  def perform(account, n)
    rows = Array.new(3) { |i| "account #{account} row #{i} of report #{n}" }
    ReportCache::ROWS["#{account}-#{n}"] = rows unless QUIET # LEAK
    rows.map(&:upcase).size
  end
end
