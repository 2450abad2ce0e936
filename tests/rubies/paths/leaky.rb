# A small leaky program for tests/rubies/paths: UserCache.@cache (a class
# instance variable, its only one) gains users that are never evicted, and
# the Registry::INSTANCE object's @sets (an OBJECT's ivar) keeps Sets. Dumps
# its heap three times, to /out/A.json B.json C.json (ARGV[0] overrides
# /out). Runs under every CRuby 3.1-4.0, native or wasm.
require "objspace"
require "set"

class User
  def initialize(id)
    @id = id
    @name = "user-#{id}"
    @email = "user#{id}@example.org"
  end
end

class UserCache
  @cache = {}
  def self.fetch(id) = (@cache[id] ||= User.new(id))
end

class Registry
  def initialize
    @sets = []
  end

  def add(set) = @sets << set
  INSTANCE = new
end

out = ARGV[0] || "/out"
iteration = 0
step = lambda do
  50.times { |j| UserCache.fetch(iteration * 1000 + j) }
  5.times { |j| Registry::INSTANCE.add(Set.new(["tag-#{iteration}-#{j}"])) }
  iteration += 1
end
dump = lambda do |name|
  GC.start
  File.open(File.join(out, name), "w") { |f| ObjectSpace.dump_all(output: f) }
end
step.call
dump.call("A.json")
step.call
dump.call("B.json")
step.call
dump.call("C.json")
