# frozen_string_literal: true

require "securerandom"

# The one way the gem writes a file (dumps, manifests, raw inline dumps, every
# temporary) and the one rule for the folders it writes into. Temporaries are
# created O_CREAT|O_EXCL|O_NOFOLLOW, 0600, under an unpredictable name; the
# target is lstat-ed and never renamed over a symlink, a device or a FIFO; a
# folder that another user may have planted or may write into is refused.
module Heapleak
  module Capture
    module SafeFile
      CREATE = File::WRONLY | File::CREAT | File::EXCL | File::NOFOLLOW

      module_function

      # DIR made 0700 when missing (its parent must pass the same rule), then
      # refused unless it and every folder above it (its real path) belong to
      # this user or root and are not writable by others, or are sticky
      # (/tmp: others cannot remove or rename what is ours) and belong to
      # this user or root. WHAT names the folder in the error.
      def ensure_dir(dir, what)
        dir = File.expand_path(dir)
        unless File.exist?(dir) || File.symlink?(dir)
          check_chain(File.dirname(dir), what, dir)
          begin
            Dir.mkdir(dir, 0o700)
          rescue Errno::EEXIST
            nil # made meanwhile: checked below like any folder
          end
        end
        link = File.lstat(dir)
        # A link another user made (in /tmp, say) would send our files into
        # a folder of their choosing: only ours or root's are followed.
        if link.symlink? && !(link.uid == Process.euid || link.uid.zero?)
          raise CaptureError, "#{what} #{dir} is a symbolic link of uid #{link.uid}, not of this user " \
                              "(#{Process.euid}) or root: refused"
        end
        check_chain(dir, what)
        dir
      rescue SystemCallError => e
        raise CaptureError, "cannot use #{dir} as #{what}: #{e.message}"
      end

      def check_chain(dir, what, asked = dir)
        real = File.realpath(dir)
        stat = File.stat(real)
        raise CaptureError, "#{what} #{dir} is not a folder: refused" unless stat.directory?

        path = real
        loop do
          check_one(path, File.lstat(path), what, asked)
          break if path == "/"

          path = File.dirname(path)
        end
      end

      def check_one(path, stat, what, asked)
        shown = path == asked ? asked : "#{path} (above #{asked})"
        unless stat.uid == Process.euid || stat.uid.zero?
          raise CaptureError, "#{what} #{shown} belongs to uid #{stat.uid}, not to this user (#{Process.euid}) " \
                              "or root: refused (another user could swap or read what is written there)"
        end
        # Sticky (as /tmp): others may add names but not remove or rename
        # ours, and every name we write is exclusive or lstat-ed.
        return if (stat.mode & 0o022).zero? || (stat.mode & 0o1000).nonzero?

        raise CaptureError, format("%s %s is writable by others (mode %o): refused; chmod 700 it", what, shown,
                                   stat.mode & 0o7777)
      end

      # A fresh temporary in DIR: ".BASE.PID.RANDOM.tmp", created exclusive,
      # never through a symlink, 0600. Yields the open File, returns its path.
      def create_temp(dir, base)
        path = temp_name(dir, base)
        File.open(path, CREATE, 0o600) { |file| yield file } if block_given?
        path
      end

      # The name alone, for a temporary another process creates (the
      # compressor opens it with the same flags).
      def temp_name(dir, base)
        File.join(dir, ".#{base}.#{Process.pid}.#{SecureRandom.hex(8)}.tmp")
      end

      # The pid in a temporary's name (stale ones are removed by it); the
      # random part is optional so that names of gem versions before it
      # (".NAME.PID.tmp") are cleaned up too.
      TEMP = /\.(\d+)(?:\.[0-9a-f]{16})?\.tmp\z/.freeze

      # Renames TMP to TARGET unless TARGET is something other than a regular
      # file (a symlink, a device, a FIFO, a socket, a folder): renaming over
      # it would replace the link or node with our file.
      def commit(tmp, target)
        begin
          stat = File.lstat(target)
          unless stat.file?
            raise CaptureError, "#{target} exists and is a #{stat.ftype}, not a regular file: refused to replace it"
          end
        rescue Errno::ENOENT
          nil
        end
        File.rename(tmp, target)
      end

      # Writes TEXT to PATH through a temporary: fsynced, renamed.
      def write(path, text)
        tmp = create_temp(File.dirname(path), File.basename(path)) do |file|
          file.write(text)
          file.flush
          file.fsync
        end
        commit(tmp, path)
        tmp = nil
      ensure
        remove(tmp)
      end

      # Removes a temporary of ours; already gone is fine (a compressor that
      # died removes its own, and an exist? check before unlink is a race).
      def remove(path)
        File.unlink(path) if path
      rescue Errno::ENOENT
        nil
      end
    end
  end
end
