# probe.rb: a small heap with one object of each kind the dump format changed
# for across Ruby versions, dumped with ObjectSpace.dump_all, plus what the
# interpreter says about itself. dump_table.py reads both and prints the
# per-version table of docs/dump-format.md.
#
#   ruby probe.rb OUTDIR        writes OUTDIR/dump.json and OUTDIR/probe.json
#
# Standard library only; runs unchanged under Debian's ruby and the wasm builds.

require 'objspace'
require 'json'
require 'set'

outdir = ARGV[0] or abort("usage: ruby #{$0} OUTDIR")

# A class whose class-level ivars hold heap objects (4.0 keeps them in an IMEMO).
class ProbeCache
  @store = { 'k' => 'v' }
  @list = ['x']
  class << self
    attr_reader :store, :list
  end
end

# An object with heap-valued and immediate ivars (shapes, from 3.2).
class ProbeObject
  def initialize
    @name = +'probe'
    @count = 3
    @tags = ['a']
    @none = nil
  end
end

ProbeStruct = Struct.new(:a, :b)
$probe_object = ProbeObject.new
$probe_set = Set['one', 'two']
$probe_float = 1.5 * ARGV.size # computed: a literal may be a frozen constant
$probe_struct = ProbeStruct.new('a', 2)
$probe_id = Object.new
$probe_id_value = $probe_id.object_id
$probe_chilled = 'a literal string' # chilled from 3.4 (no frozen_string_literal here)
$probe_symbol = :"probe_dynamic_#{ARGV.size}"

def thread_support
  Thread.new { 1 }.value
  'yes'
rescue NotImplementedError, ThreadError => e
  "no (#{e.class})"
end

def fork_support
  return 'no (Process.respond_to?(:fork) false)' unless Process.respond_to?(:fork)

  pid = fork { exit!(0) }
  Process.wait(pid)
  'yes'
rescue NotImplementedError => e
  "no (#{e.class})"
end

def address_of(obj)
  ObjectSpace.dump(obj)[/"address":"(0x\h+)"/, 1]
end

probes = {
  'ProbeCache' => ProbeCache, 'ProbeCache.@store' => ProbeCache.store, 'ProbeCache.@list' => ProbeCache.list,
  'ProbeObject' => $probe_object, 'Set' => $probe_set, 'Float' => $probe_float, 'Struct' => $probe_struct,
  'object_id' => $probe_id, 'String literal' => $probe_chilled, 'Symbol' => $probe_symbol,
}
info = {
  'ruby' => RUBY_DESCRIPTION,
  'platform' => RUBY_PLATFORM,
  'pointer_bytes' => [0].pack('J').bytesize,
  'threads' => thread_support,
  'fork' => fork_support,
  'flonum' => ObjectSpace.dump($probe_float).start_with?('{"address"') ? 'no (Floats are heap objects)' : 'yes',
  'addresses' => probes.transform_values { |o| address_of(o) },
}
GC.start
File.open(File.join(outdir, 'dump.json'), 'w') { |f| ObjectSpace.dump_all(output: f) }
File.write(File.join(outdir, 'probe.json'), JSON.pretty_generate(info))
