# frozen_string_literal: true

require "json"
require "socket"
require "io/wait"

# Talks to a process's control socket (see control_server.rb): sends one
# request, yields each progress line, returns the last one. Used by the
# heapleak-capture command and the tests.
module Heapleak
  module Capture
    class ControlClient
      # target: a socket path, or a pid found as DIR/heapleak-PID.sock.
      def self.socket_for(target, dir)
        return target if target.include?("/") || target.end_with?(".sock")
        raise ArgumentError, "#{target.inspect} is neither a pid nor a socket path" unless target.match?(/\A\d+\z/)
        raise ArgumentError, "give the socket folder (--dir or HEAPLEAK_CAPTURE_DIR) to find pid #{target}" unless dir

        File.join(dir, "heapleak-#{target}.sock")
      end

      # The sockets in DIR whose process is alive, as [pid, path].
      def self.list(dir)
        Dir.glob(File.join(dir, "heapleak-*.sock")).filter_map do |path|
          pid = path[/heapleak-(\d+)\.sock\z/, 1].to_i
          begin
            Process.kill(0, pid)
            [pid, path]
          rescue Errno::ESRCH
            nil
          rescue Errno::EPERM
            [pid, path]
          end
        end.sort
      end

      def initialize(path)
        @path = path
      end

      # idle: seconds to wait for each line (nil: for ever; a series in
      # inline mode sends nothing while the process is paused).
      def request(object, idle = nil)
        socket = UNIXSocket.new(@path)
        socket.write(JSON.generate(object) + "\n")
        last = nil
        while (line = next_line(socket, idle))
          message = JSON.parse(line)
          if message.key?("ok")
            last = message
          elsif block_given?
            yield message
          end
        end
        last || { "ok" => false, "kind" => "error", "error" => "the process closed the socket without an answer" }
      rescue Errno::ENOENT, Errno::ECONNREFUSED => e
        { "ok" => false, "kind" => "unreachable",
          "error" => "no capture socket at #{@path} (#{e.message}): is capture enabled in that process?" }
      rescue Timeout => e
        { "ok" => false, "kind" => "unreachable", "error" => "#{@path}: #{e.message}" }
      ensure
        socket&.close
      end

      class Timeout < StandardError; end

      private

      def next_line(socket, idle)
        return socket.gets if idle.nil?
        raise Timeout, "no answer within #{idle} s" unless socket.wait_readable(idle)

        socket.gets
      end
    end
  end
end
