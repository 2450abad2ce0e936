# frozen_string_literal: true
#
# heap_walk.rb - the driver's in-process view of the heap: addresses and never-reused
# object ids of objects (internal ones through ObjectSpace wrappers), every live
# object, and the new objects a holder reaches through new objects. Touches objects
# only through bound methods and fixed receivers, so walking adds no call caches to
# the heap's classes (a WeakRef would even delegate is_a? to its dead target).

require 'objspace'
require 'fiddle'
require 'set'

module Addr
  module_function

  # "0x..." address of a heap object (or of the internal object a wrapper stands for)
  def of(obj)
    if wrapper?(obj)
      "0x#{obj.inspect[/0x(\h+)/, 1].to_i(16).to_s(16)}"
    else
      format('0x%x', Fiddle.dlwrap(obj))
    end
  end

  # Module#=== and the raw VALUE, not is_a?/nil?: a WeakRef delegates those to its
  # target, and raises once the target is gone
  def wrapper?(obj) = ObjectSpace::InternalObjectWrapper === obj # rubocop:disable Style/CaseEquality

  # a heap pointer (not nil/true/false, Integer, Float, static Symbol): aligned, above the special constants
  def heap?(obj)
    return true if wrapper?(obj)
    v = Fiddle.dlwrap(obj)
    (v & 7).zero? && v > 0x40
  end

  def stop?(obj) = wrapper?(obj) ? %i[T_CLASS T_MODULE T_ICLASS].include?(obj.type) : Module === obj # rubocop:disable Style/CaseEquality

  # identity that is never reused (unlike an address once its object is freed). Bound,
  # not sent: a call on each object's class would add call caches (IMEMOs) to the heap.
  ID = BasicObject.instance_method(:__id__)
  def id(obj) = wrapper?(obj) ? obj.internal_object_id : ID.bind_call(obj)

  # id => address of every object alive now: the Ruby-visible ones (each_object) and
  # the internal ones (IMEMO envs, iseqs, call caches, hidden finalizer Arrays...) that
  # they or the GC roots reach
  def everything(limit = nil)
    all = {}
    stack = []
    ObjectSpace.each_object do |o|
      all[ID.bind_call(o)] = of(o)
      stack << o
      break if limit && stack.size >= limit
    end
    ObjectSpace.reachable_objects_from_root.each_value do |objs|
      objs.each do |r|
        next unless wrapper?(r) && !all.key?(i = r.internal_object_id)
        all[i] = of(r)
        stack << r
      end
    end
    until stack.empty?
      (ObjectSpace.reachable_objects_from(stack.pop) || []).each do |r|
        next unless wrapper?(r)
        i = r.internal_object_id
        next if all.key?(i)
        all[i] = of(r)
        stack << r
      end
    end
    all
  end

  # object id => address of the new objects `roots` reach through new objects only
  # (not in `old`, the ids alive at dump A): what the leak added under its holder.
  # Classes and modules are recorded but not entered: an anonymous class can leak.
  def new_closure(roots, old)
    seen = {}
    stack = roots.flat_map { |r| ObjectSpace.reachable_objects_from(r) || [] }
    until stack.empty?
      obj = stack.pop
      next unless heap?(obj)
      i = id(obj)
      next if seen.key?(i) || old.include?(i)
      seen[i] = of(obj)
      next if stop?(obj)
      (ObjectSpace.reachable_objects_from(obj) || []).each { |r| stack << r }
    end
    seen
  end

  def kind(obj)
    d = ObjectSpace.dump(obj)
    { 'address' => of(obj), 'type' => d[/"type":"([A-Z_]+)"/, 1], 'class' => (obj.class.name rescue nil) }
  end
end
