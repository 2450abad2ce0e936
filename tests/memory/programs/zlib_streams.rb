# frozen_string_literal: true

# Native memory held by Ruby objects: a compressor per upload, never closed
# (no #close, no #finish), kept in a registry. Each Zlib::Deflate holds about
# 256 KiB of zlib state malloc'd by the extension, while its memsize counts
# only its struct: malloc's in-use bytes grow far beyond the objects' bytes.
require "zlib"

module MemoryPrograms
  module ZlibStreams
    OPEN = []

    module_function

    def phase(number)
      150.times do |i|
        deflate = Zlib::Deflate.new(Zlib::BEST_COMPRESSION)
        deflate << "upload #{number}-#{i} " * 200
        OPEN << deflate
      end
    end
  end
end
