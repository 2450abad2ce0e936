# frozen_string_literal: true

require_relative "lib/heapleak/capture/version"

Gem::Specification.new do |spec|
  spec.name = "heapleak-capture"
  spec.version = Heapleak::Capture::VERSION
  spec.summary = "Safe heap dumps of a running Ruby process (Puma, Sidekiq, Rails), for heapleak"
  spec.description = "Off unless enabled; a private control socket per process serves dump, series and " \
                     "status. A governor forks only when memory allows; dumps are gzipped, 0600, renamed " \
                     "when complete, with a manifest heapleak reads to refuse series that are not one series."
  spec.authors = ["heapleak developers"]
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  spec.files = Dir["lib/**/*.rb", "bin/*", "README.md"]
  spec.bindir = "bin"
  spec.executables = ["heapleak-capture"]
  spec.require_paths = ["lib"]
end
