# frozen_string_literal: true

# A Rack app that keeps nothing: each request builds a page and drops it.
# Captured by tests/capture/quiet_series_e2e.rb, where any growth between
# dumps can only be heapleak-capture's own.
require "heapleak/capture/rack"

class Quiet
  def call(_env)
    page = Array.new(20) { |i| "line #{i} #{rand}" }.join("\n")
    [200, { "content-type" => "text/plain" }, [page]]
  end
end

use Heapleak::Capture::RequestCounter
run Quiet.new
