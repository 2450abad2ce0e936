# frozen_string_literal: true

require "json"
require "socket"
require "io/wait"
require_relative "safe_file"

# The control socket: SOCKET_DIR/heapleak-PID.sock, mode 0600, in a folder
# only this user may write. One request per connection, one JSON line:
#   {"method":"status"}
#   {"method":"dump","name":"A","out":"/abs/dir","mode":"fork|inline"}
#   {"method":"series","names":["A","B","C"],"interval":30,"every":1000,"trace":true,"out":"/abs/dir"}
# answered by progress lines ({"event":...}) and one last line,
# {"ok":true,"result":...} or {"ok":false,"kind":"busy|refused|error","error":"..."}.
# The accept loop outlives transient errors (EMFILE and the like: it pauses,
# logs one line, retries), a request must arrive within request_timeout
# seconds, and at most max_connections are served at once (more get "busy").
module Heapleak
  module Capture
    class ControlServer
      MAX_REQUEST = 64 * 1024
      # Pause before accepting again after a failed accept (no fd left...).
      ACCEPT_RETRY = 0.5

      def self.open(config) = new(config)

      attr_reader :path, :pid

      # Connections being served now (at most max_connections).
      def connections = @count_lock.synchronize { @connections }

      def initialize(config)
        @pid = Process.pid
        @request_timeout = config.request_timeout || 10.0
        @max_connections = config.max_connections || 16
        @connections = 0
        @count_lock = Mutex.new
        self.class.ensure_private_dir(config.socket_dir)
        @path = File.join(config.socket_dir, "heapleak-#{@pid}.sock")
        # A socket by our pid is a dead process's: pids are reused.
        File.unlink(@path) if File.socket?(@path)
        old_umask = File.umask(0o177)
        begin
          @listener = UNIXServer.new(@path)
        ensure
          File.umask(old_umask)
        end
        File.chmod(0o600, @path)
        @thread = Capture.name_thread(Thread.new { accept_loop }, "accept")
        at_exit { close if Process.pid == @pid }
      rescue SystemCallError => e
        raise CaptureError, "cannot open the control socket in #{config.socket_dir}: #{e.message}"
      end

      # The socket folder must be ours and closed to others, as heapleakd's is:
      # made 0700 when missing, refused when another user owns it, others may
      # write it, or it is a symbolic link.
      def self.ensure_private_dir(dir)
        # The folders above it by SafeFile's rule: another user who may
        # rename one of them could swap this folder for theirs.
        SafeFile.check_chain(File.dirname(File.expand_path(dir)), "the socket folder", dir)
        Dir.mkdir(dir, 0o700) unless File.exist?(dir) || File.symlink?(dir)
        stat = File.lstat(dir)
        raise CaptureError, "#{dir} is a symbolic link: refused" if stat.symlink?
        raise CaptureError, "#{dir} is not a folder" unless stat.directory?
        raise CaptureError, "#{dir} belongs to uid #{stat.uid}, not to this user (#{Process.euid}): refused" if stat.uid != Process.euid
        if (stat.mode & 0o022).nonzero?
          raise CaptureError, format("%s is writable by others (mode %o): refused; chmod 700 it", dir, stat.mode & 0o7777)
        end
      rescue SystemCallError => e
        raise CaptureError, "cannot use #{dir} for the control socket: #{e.message}"
      end

      def close
        return unless @listener

        listener = @listener
        @listener = nil
        listener.close unless listener.closed?
        @thread&.kill
        File.unlink(@path) if @pid == Process.pid && File.socket?(@path)
      rescue SystemCallError, IOError
        nil
      end

      # In a forked child: the listener is the parent's; drop our copy
      # without removing the parent's socket file.
      def abandon
        @listener&.close unless @listener&.closed?
        @listener = nil
      rescue IOError
        nil
      end

      private

      # Ends only when the listener is closed. Any other failure of accept
      # (EMFILE, ENFILE, ENOMEM, ECONNABORTED...) is transient: one log line
      # per run of failures, a pause, and the socket serves again once fds
      # are back (it used to end for good on the first EMFILE, silently).
      def accept_loop
        failing = false
        while (listener = @listener)
          begin
            client = listener.accept
          rescue IOError
            break # closed
          rescue SystemCallError => e
            break if @listener.nil? || listener.closed?

            unless failing
              warn "heapleak-capture: accept on #{@path} failed (#{e.message}); retrying every #{ACCEPT_RETRY} s"
              failing = true
            end
            sleep ACCEPT_RETRY
            next
          end
          if failing
            warn "heapleak-capture: #{@path} accepts again"
            failing = false
          end
          dispatch_connection(client)
        end
      end

      # A thread per connection, up to max_connections at once; beyond, a
      # "busy" answer written without blocking and the connection closed.
      def dispatch_connection(client)
        unless admit
          text = JSON.generate("ok" => false, "kind" => "busy",
                               "error" => "busy: #{@max_connections} connections are being served") + "\n"
          client.write_nonblock(text, exception: false)
          client.close
          return
        end
        begin
          Thread.new(client) do |c|
            Capture.name_thread(Thread.current, "request")
            serve(c)
          ensure
            release
          end
        rescue ThreadError => e
          release
          warn "heapleak-capture: no thread for a request (#{e.message})"
          client.close
        end
      rescue IOError, SystemCallError
        nil
      end

      def admit
        @count_lock.synchronize do
          return false if @connections >= @max_connections

          @connections += 1
        end
        true
      end

      def release
        @count_lock.synchronize { @connections -= 1 }
      end

      def serve(client)
        uid, = client.getpeereid
        if uid != Process.euid && uid != 0
          return reply(client, { "ok" => false, "kind" => "refused", "error" => "uid #{uid} may not capture this process" })
        end

        request = parse(read_request(client))
        result = dispatch(request) { |event| send_line(client, event) }
        reply(client, { "ok" => true, "result" => result })
      rescue Busy => e
        reply(client, { "ok" => false, "kind" => "busy", "error" => e.message })
      rescue CaptureError, ArgumentError => e
        kind = e.message.start_with?("refused", "fork refused") ? "refused" : "error"
        reply(client, { "ok" => false, "kind" => kind, "error" => e.message })
      rescue StandardError => e
        reply(client, { "ok" => false, "kind" => "error", "error" => "#{e.class}: #{e.message}" })
      ensure
        client.close unless client.closed?
      end

      # One line, within request_timeout seconds: an idle connection does not
      # hold a thread (nor count against max_connections) for ever.
      def read_request(client)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + @request_timeout
        line = +""
        until line.include?("\n") || line.bytesize > MAX_REQUEST
          left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
          raise ArgumentError, "no request line within #{@request_timeout} s" if left <= 0

          chunk = client.read_nonblock(4096, exception: false)
          case chunk
          when :wait_readable then client.wait_readable(left)
          when nil then break
          else line << chunk
          end
        end
        newline = line.index("\n")
        newline && newline < MAX_REQUEST ? line[0..newline] : line.byteslice(0, MAX_REQUEST)
      end

      def parse(line)
        raise ArgumentError, "empty request" if line.nil? || line.strip.empty?
        raise ArgumentError, "request longer than #{MAX_REQUEST} bytes" unless line.end_with?("\n")

        request = JSON.parse(line)
        raise ArgumentError, "a request is a JSON object" unless request.is_a?(Hash)

        request
      rescue JSON::ParserError => e
        raise ArgumentError, "not JSON: #{e.message[0, 200]}"
      end

      def dispatch(request, &progress)
        case request["method"]
        when "status" then Capture.status
        when "dump"
          Capture.dump(name: string(request, "name", "A"), out: out_dir(request), mode: mode(request), &progress)
        when "series"
          dumps = Capture.series(
            names: request.fetch("names", %w[A B C]), interval: number(request, "interval"),
            every: request["every"]&.then { |n| Integer(n) }, trace: request["trace"] == true,
            out: out_dir(request), mode: mode(request), timeout: number(request, "timeout") || 3600, &progress
          )
          { "dumps" => dumps, "warnings" => Capture.series_warnings(dumps) }
        else
          raise ArgumentError, "unknown method #{request['method'].inspect}: status, dump or series"
        end
      end

      def string(request, key, default)
        value = request.fetch(key, default)
        raise ArgumentError, "#{key} must be a string" unless value.is_a?(String)

        value
      end

      def number(request, key)
        value = request[key]
        return nil if value.nil?
        raise ArgumentError, "#{key} must be a number" unless value.is_a?(Numeric)

        value
      end

      def out_dir(request)
        out = request["out"]
        return nil if out.nil?
        raise ArgumentError, "out must be an absolute path (the process's folder is not yours)" unless out.is_a?(String) && out.start_with?("/")

        out
      end

      def mode(request)
        value = request["mode"]
        return nil if value.nil?
        raise ArgumentError, "mode is fork or inline" unless %w[fork inline].include?(value)

        value.to_sym
      end

      # A client that went away does not stop the capture: its files are
      # still written.
      def send_line(client, object)
        client.write(JSON.generate(object) + "\n")
      rescue SystemCallError, IOError
        nil
      end

      def reply(client, object) = send_line(client, object)
    end
  end
end
