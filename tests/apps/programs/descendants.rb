# frozen_string_literal: true
#
# descendants.rb - a form builder that makes an anonymous subclass of a base form
# per request (Class.new(BaseForm) { fields }). BaseForm extends
# ActiveSupport::DescendantsTracker, which (ActiveSupport 6.1) records every
# subclass as a WeakRef in a DescendantsArray that nothing prunes: the classes die,
# the WeakRefs stay. The holder is that DescendantsArray's @refs Array. Benign:
# a compiled-template LRU at its cap, per-request garbage.

require 'active_support'
require 'active_support/descendants_tracker'
require 'rack'
require 'rack/mock'

class DescendantsApp < LeakyApp
  register 'descendants'

  class BaseForm
    extend ActiveSupport::DescendantsTracker
    def self.fields(*names) = names.each { |n| attr_accessor n }
  end

  TEMPLATES = {}

  APP = lambda do |env|
    req = Rack::Request.new(env)
    names = req.params['fields'].split(',').map(&:to_sym)
    form = Class.new(BaseForm) { fields(*names) } # the bug: one tracked subclass per request
    obj = form.new
    names.each { |n| obj.public_send("#{n}=", req.params[n.to_s]) }
    key = names.join('-')
    TEMPLATES[key] ||= names.map { |n| "<input name=#{n}>" }.join
    TEMPLATES.delete(TEMPLATES.first[0]) while TEMPLATES.size > 10
    [200, { 'content-type' => 'text/html' }, [TEMPLATES[key]]]
  end

  def description = 'ActiveSupport 6.1 DescendantsTracker keeping a WeakRef per anonymous form subclass made per request'

  def requests = 150 # a WeakRef is small: enough forms per iteration to matter

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.get("/form?fields=name,email,f#{i % 12}&name=n#{iter}&email=e#{i}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def tracked = ActiveSupport::DescendantsTracker.class_variable_get(:@@direct_descendants)[BaseForm]
  def holder = tracked.instance_variable_get(:@refs)
  def holder_what = 'ActiveSupport::DescendantsTracker @@direct_descendants[BaseForm] DescendantsArray @refs Array (WeakRefs)'
  def bounded = [['DescendantsApp::TEMPLATES Hash (cap 10)', TEMPLATES]]
end
