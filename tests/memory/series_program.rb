# frozen_string_literal: true

# Runs one memory program (programs/NAME.rb) under the capture gem and takes
# a series A, B, C of it over the control socket, as an operator would: A
# once the program has booted, then one phase of its workload before B and
# another before C (the series waits for one unit of work, which the phase
# counts when done). Manifests record memsize_of_all (opted in).
# usage: ruby tests/memory/series_program.rb NAME OUT_DIR
$LOAD_PATH.unshift(File.expand_path("../../clients/ruby/lib", __dir__))
require "fileutils"
require "heapleak/capture"
require "heapleak/capture/control_client"

name, out = ARGV.fetch(0), ARGV.fetch(1)
require_relative "programs/#{name}"
program = MemoryPrograms.const_get(name.split("_").map(&:capitalize).join)

Dir.mkdir(out, 0o700) unless File.directory?(out)
Heapleak::Capture.enable!(socket_dir: File.join(out, "sockets"), out_dir: out, min_gap: 0, memsize_of_all: true,
                          signal: "none")
client = Heapleak::Capture::ControlClient.new(Heapleak::Capture.server.path)
request = Thread.new do
  client.request("method" => "series", "names" => %w[A B C], "every" => 1, "out" => out)
end

def wait_for(path, request)
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 120
  until File.exist?(path)
    abort "series_program: the series ended before #{path}: #{request.value.inspect}" unless request.alive?
    abort "series_program: no #{path} after 120 s" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    sleep 0.02
  end
end

%w[A B].each_with_index do |dump, index|
  wait_for(File.join(out, "#{dump}.manifest.json"), request)
  program.phase(index + 1)
  Heapleak::Capture.tick
end
answer = request.value
abort "series_program: the series failed: #{answer['error']}" unless answer["ok"]
puts "series_program: #{name}: #{answer['result']['dumps'].map { |d| File.basename(d['path']) }.join(' ')}"
