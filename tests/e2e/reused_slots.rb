# frozen_string_literal: true
# reused_slots.rb: `heapleak stats` (the one-shot CLI) and `heapleak explain`
# give the same new objects where Ruby reused a slot of A (issue 25, defect 7).
# Ruby 3.3+ puts small Hashes in a slot pool of their own: a new Hash of a new
# record lands where A had an empty Hash, and the identity rule alone cannot
# tell it from that Hash having gained entries; B's references can (a new
# object is held by new objects only). stats used to load B without them.
#
#   ruby reused_slots.rb HEAPLEAK WORKDIR

require_relative 'helper'

heapleak, work = ARGV
abort('usage: reused_slots.rb HEAPLEAK WORKDIR') unless heapleak && work
E2E.heapleak = heapleak
FileUtils.mkdir_p(work)

def line(address, type, klass: nil, refs: [], **extra)
  { address: address, type: type, class: klass, references: refs, memsize: 40, **extra }.compact.to_json
end

CLASSES = [
  { address: '0x10', type: 'CLASS', name: 'User', references: [], memsize: 40 }.to_json,
  { address: '0x20', type: 'CLASS', name: 'Hash', references: [], memsize: 40 }.to_json,
  { address: '0x30', type: 'CLASS', name: 'Users', references: ['0x600'], memsize: 40 }.to_json,
].freeze
root = ->(refs) { { type: 'ROOT', root: 'vm', references: refs }.to_json }

a = [*CLASSES, root.(%w[0x10 0x20 0x30]),
     line('0x100', 'OBJECT', klass: '0x10', refs: ['0x200']),  # an old User
     line('0x200', 'HASH', klass: '0x20', size: 0),            # its empty Hash, gains an entry
     line('0x300', 'HASH', klass: '0x20', size: 0),            # an empty Hash that dies
     line('0x600', 'ARRAY', refs: ['0x100'], length: 1)]       # Users' list
# B and C: a new User (0x700) appended to the list, its new Hash in 0x300's slot
bc = [*CLASSES, root.(%w[0x10 0x20 0x30]),
      line('0x100', 'OBJECT', klass: '0x10', refs: ['0x200']),
      line('0x200', 'HASH', klass: '0x20', refs: ['0x900'], size: 1),
      line('0x300', 'HASH', klass: '0x20', refs: ['0x900'], size: 1),
      line('0x600', 'ARRAY', refs: %w[0x100 0x700], length: 2),
      line('0x700', 'OBJECT', klass: '0x10', refs: ['0x300']),
      line('0x900', 'STRING', klass: nil, value: 'admin', bytesize: 5)]
dumps = { 'A' => a, 'B' => bc, 'C' => bc }.map do |name, lines|
  File.join(work, "#{name}.json").tap { |p| File.write(p, "#{lines.join("\n")}\n") }
end

ENV['HEAPLEAK_NO_CACHE'] = '1'
stats = E2E.json('stats', *dumps, '--json')
explain = E2E.json('explain', *dumps, '--json')
if stats && explain
  got = E2E.reported(stats).keys.sort
  E2E.check(got.include?('0x300'), 'stats reports the new Hash in the reused slot 0x300', "got #{got}")
  E2E.check(got.include?('0x700'), 'stats reports the new User 0x700', "got #{got}")
  E2E.check(!got.include?('0x200'), 'stats does not report the old Hash that gained an entry', "got #{got}")
  E2E.check(stats.dig('total', 'count') == explain.dig('total', 'count'), 'stats and explain count the same new objects',
            "stats #{stats['total']}, explain #{explain['total']}")
end
E2E.finish
