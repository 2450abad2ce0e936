# frozen_string_literal: true
#
# leaky_app.rb - what every application of tests/apps/programs tells the driver:
# how to boot and run one iteration of requests, and the truth about its leak
# (holder, extra walk roots, bounded churn, split containers, root samples).

# Base class of the apps: each app file defines a subclass and registers it.
class LeakyApp
  APPS = {}
  def self.register(name) = (APPS[name] = self)

  # requests per iteration; each app scales its own work with it
  def requests = 40
  def boot; end
  def warm_up = 3.times { |i| iteration(-i - 1) }

  # describes the leak: holder object and a sentence saying what it is
  def holder = raise(NotImplementedError)
  def holder_what = raise(NotImplementedError)
  # when holder is nil: the GC root category that holds the leak with no object of
  # the program in between (e.g. 'finalizers'); explain's first row must name it
  def holder_root = nil
  # false when the holder is alive in A, B and C but its own size does not grow (it keeps
  # one key whose value, the growing container, is rebuilt: a new object each time)
  def holder_grows = true
  # 'C': the driver runs GC.compact just before dump C (objects move between B and C:
  # addresses in C are not those in B, so the holder's size in C is not checked)
  def compact_before = nil
  # the recall the diff must reach (1.0 but after a compaction, where what moved is found
  # again only by content that names one object)
  def min_recall = 1.0
  # 'A': the holder is alive from A on; 'B': created between A and B (`@seen ||= {}` first
  # called after a flag flip), so it is new in B and grows from B to C
  def holder_born = 'A'
  # objects the leak walk starts from (the holder, unless the leak has several parts)
  def leak_roots = [holder]
  # [[object, what]]: new in B, still in C, bounded (a pool that grew once)
  def benign = []
  # [[what, container]] or [[what, container, cap]]: containers that must not grow from
  # B to C (with a cap: that fill up to it, a ring buffer, and never pass it)
  def bounded = []
  # [[what, {'A' => address, 'B' => ..., 'C' => ...}, cap, owner]]: bounded containers that
  # the program replaces by a new object between dumps (`@h = @h.reject { ... }`): at another
  # address in each dump (recorded by at_dump), never past cap; neither they nor their owner
  # (the object whose ivar holds them) may be a leak row
  def replaced = []
  # [[object, what]]: holders alive since boot that a framework fills once between A and B
  # (a pool thread's per-thread registries, a reaper's Fiber): never a leak row. Their
  # own size is not checked (a Thread's reference count moves with its stack)
  def made_once = []
  # [[object, what]]: old objects (alive at A) that grow in place, a leak with no new
  # objects (a String buffer appended to, an Array of Integers)
  def grows = []
  # other objects explain's first row may name as holder (one of many alike holders)
  def first_row_accept = []
  # how many distinct leaks the app has (explain may list at most two rows more); nil: not checked
  def true_leaks = nil
  # {containers: [{what:, accept: [objs], samples: [objs]}]} when the leak has two containers
  def split = nil
  # called right after each dump ('A', 'B', 'C'): record what only exists then
  def at_dump(_name); end
  # addresses besides the holder that `root` may rightly name (another container of the same samples)
  def root_accept = []
  # a few leaked objects for `root` (default: the holder's leaked direct references)
  def root_samples = nil
end
