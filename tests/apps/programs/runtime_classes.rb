# frozen_string_literal: true
#
# runtime_classes.rb - a report renderer that compiles each report layout into
# code at run time and caches it as constants of a module: a view class
# (Class.new(BaseView)) with its ERB template compiled into a method
# (ERB#def_method), and a Struct for the layout's rows. The cache key digests the
# layout *and its title*, and the title carries the request's date and user, so
# every request compiles and keeps a new class, Struct and method: the
# CompiledViews module's constant table grows without bound. Benign: a rendered
# report LRU at its cap, per-request garbage.

require 'digest'
require 'erb'
require 'rack'
require 'rack/mock'

class RuntimeClassesApp < LeakyApp
  register 'runtime_classes'

  module CompiledViews; end

  class BaseView
    def initialize(rows) = (@rows = rows)
    def money(cents) = format('%.2f', cents / 100.0)
  end

  TEMPLATE = <<~ERB
    <h1><%= title %></h1>
    <table><% @rows.each do |r| %>
    <tr><% r.each_pair do |k, v| %><td class="<%= k %>"><%= v.is_a?(Integer) ? money(v) : v %></td><% end %></tr><% end %>
    </table>
  ERB
  RENDERED = {}

  # the bug: the key includes the title, which differs on every request
  def self.view_for(columns, title)
    key = Digest::SHA1.hexdigest("#{columns.join(',')}|#{title}")[0, 16]
    name = "Report_#{key}"
    return CompiledViews.const_get(name, false) if CompiledViews.const_defined?(name, false)

    row = Struct.new(*columns.map(&:to_sym))
    view = Class.new(BaseView)
    view.define_method(:title) { title }
    ERB.new(TEMPLATE).def_method(view, 'render()', "(report #{name})")
    CompiledViews.const_set("#{name}_Row", row)
    CompiledViews.const_set(name, view)
  end

  APP = lambda do |env|
    req = Rack::Request.new(env)
    columns = req.params['columns'].split(',')
    view = RuntimeClassesApp.view_for(columns, "Sales for #{req.params['user']} on #{req.params['date']}")
    rows = Array.new(3) { |i| CompiledViews.const_get("#{view.name.split('::').last}_Row").new(*columns.map { |c| c == 'total' ? 1000 + i : "#{c}-#{i}" }) }
    html = view.new(rows).render
    RENDERED[req.params['user']] = html.bytesize
    RENDERED.delete(RENDERED.first[0]) while RENDERED.size > 10
    [200, { 'content-type' => 'text/html' }, [html]]
  end

  def description = 'report layouts compiled at run time (Class.new, Struct.new, ERB#def_method) into constants of a module, keyed per request'

  def boot
    @mock = Rack::MockRequest.new(APP)
  end

  def iteration(iter)
    requests.times do |i|
      res = @mock.get("/report?columns=region,sku,total&user=u#{i % 9}&date=#{iter + 10}-#{i}")
      raise "GET failed: #{res.status}" unless res.status == 200
    end
  end

  def holder = CompiledViews
  def holder_what = 'RuntimeClassesApp::CompiledViews module (constants: a view class and a row Struct per report)'
  def bounded = [['RuntimeClassesApp::RENDERED Hash (cap 10)', RENDERED]]
end
