# frozen_string_literal: true

module Heapleak
  module Capture
    VERSION = "0.1.0"
  end
end
