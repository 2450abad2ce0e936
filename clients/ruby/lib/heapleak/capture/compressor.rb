# frozen_string_literal: true

# The compressor, run as its own process by DumpWriter:
#   ruby compressor.rb PATH   (stdin: the dump; HEAPLEAK_CAPTURE_REDACT_KEY: a
#                              hex key to redact string values with)
# writes gzip level 1 to PATH (created O_EXCL|O_NOFOLLOW, mode 0600, fsynced) and prints
# one JSON line: the byte counts, or the error (then PATH is removed). Its own
# process, so the dumping one never waits on a Ruby thread of its own while
# dump_all walks the heap.
require "zlib"
require "json"

$stdout.sync = true
path = ARGV.fetch(0)
key = ENV.delete("HEAPLEAK_CAPTURE_REDACT_KEY")
bytes_in = 0
begin
  redactor = nil
  if key
    require_relative "redactor"
    redactor = Heapleak::Capture::Redactor.new([key].pack("H*"))
  end
  File.open(path, File::WRONLY | File::CREAT | File::EXCL | File::NOFOLLOW, 0o600) do |file|
    gz = Zlib::GzipWriter.new(file, 1)
    if redactor
      $stdin.binmode
      $stdin.each_line do |text|
        bytes_in += text.bytesize
        gz.write(redactor.line(text))
      end
    else
      buffer = String.new(capacity: 1 << 20)
      while $stdin.read(1 << 20, buffer)
        bytes_in += buffer.bytesize
        gz.write(buffer)
      end
    end
    gz.finish
    file.flush
    file.fsync
  end
  $stdout.write(JSON.generate("in" => bytes_in, "out" => File.size(path), "redacted" => !redactor.nil?))
rescue Exception => e # rubocop:disable Lint/RescueException
  File.unlink(path) rescue nil # rubocop:disable Style/RescueModifier
  $stdout.write(JSON.generate("error" => "#{e.class}: #{e.message}"))
  exit!(1)
end
