# frozen_string_literal: true

require "openssl"

# Redaction of a dump as it is written: every STRING and SYMBOL record's value is
# replaced by a keyed hash (HMAC-SHA256) of the same byte length, in hex, so
# equal strings stay equal, sizes stay true, and no original value leaves the
# machine. Class names, method names and file paths live in other fields and
# are kept: heapleak's rows are the same on a redacted series. One key per
# process (or HEAPLEAK_CAPTURE_REDACT_KEY_FILE for a fleet), so every dump of
# a series is redacted alike. Dynamic Symbols (`params[:x].to_sym`,
# `symbolize_names: true` over user JSON) carry user data in their SYMBOL
# record's "value" as much as Strings do, so they are redacted alike.
module Heapleak
  module Capture
    class Redactor
      VALUE = /"value":"((?:[^"\\]|\\.)*)"/.freeze
      BYTESIZE = /"bytesize":(\d+)/.freeze

      def initialize(key)
        raise ArgumentError, "a redaction key has at least 16 bytes" if key.bytesize < 16

        @key = key
      end

      # One dump line (a JSON object, newline included) in, one out.
      def line(text)
        return text unless text.include?('"type":"STRING"') || text.include?('"type":"SYMBOL"')

        text.sub(VALUE) do
          escaped = Regexp.last_match(1)
          length = text[BYTESIZE, 1]&.to_i || decoded_bytesize(escaped)
          %("value":"#{mask(escaped, length)}")
        end
      end

      def mask(escaped, length)
        out = +""
        block = 0
        while out.bytesize < length
          out << OpenSSL::HMAC.hexdigest("SHA256", @key, "#{block}\0#{escaped}")
          block += 1
        end
        out.byteslice(0, length)
      end

      private

      def decoded_bytesize(escaped)
        JSON.parse(%("#{escaped}")).bytesize
      rescue JSON::ParserError
        escaped.bytesize
      end
    end
  end
end
