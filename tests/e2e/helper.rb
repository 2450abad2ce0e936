# frozen_string_literal: true
# helper.rb: shared bits of the end-to-end tests (standard library only):
# run the heapleak binary, parse its JSON, record checks, exit non-zero on failure.

require 'json'
require 'open3'
require 'fileutils'

module E2E
  Result = Struct.new(:out, :err, :code) do
    def text = "#{out}\n#{err}"
  end

  @failures = 0
  @checks = 0

  module_function

  def heapleak=(path)
    @heapleak = path
  end

  # Runs `heapleak ARGS...`; returns Result(out, err, exit code).
  def run(*args)
    run_with_env({}, *args)
  end

  # run with environment changes (a nil value unsets the variable).
  def run_with_env(env, *args)
    out, err, st = Open3.capture3(env, @heapleak, *args.map(&:to_s))
    Result.new(out, err, st.exitstatus || (128 + st.termsig.to_i))
  end

  def sh(*cmd)
    env = cmd.first.is_a?(Hash) ? cmd.shift : {}
    out, err, st = Open3.capture3(env, *cmd.map(&:to_s))
    abort("FATAL: #{cmd.join(' ')} failed (#{st.exitstatus}): #{err}") unless st.success?
    out
  end

  # Runs heapleak with --json expected to succeed; returns the parsed document (or nil).
  def json(*args, expect: 0)
    r = run(*args)
    unless check(r.code == expect, "heapleak #{args.join(' ')[0, 160]} exits #{expect}", "got #{r.code}: #{r.err.strip[0, 500]}")
      return nil
    end
    JSON.parse(r.out)
  rescue JSON::ParserError => e
    check(false, "heapleak #{args.join(' ')[0, 160]} prints JSON", "#{e.message[0, 200]}; stdout: #{r.out[0, 300].inspect}")
    nil
  end

  def check(ok, what, detail = nil)
    @checks += 1
    if ok
      puts "ok   #{what}"
    else
      @failures += 1
      puts "FAIL #{what}#{detail ? " -- #{detail}" : ''}"
    end
    ok
  end

  def info(msg) = puts("     #{msg}")

  def finish
    puts "#{@checks - @failures}/#{@checks} checks passed"
    exit(@failures.zero? ? 0 : 1)
  end

  # Every address reported in a `stats --json` document, across groups.
  def reported(stats)
    (stats['groups'] || []).flat_map { |g| g['samples'] || [] }.to_h { |a| [a, true] }
  end

  # `info --json` fields: the wire's camelCase, as heapleakd answers loadHeap.
  def broken_lines(info) = Integer(info.fetch('brokenLines'))
  def missing_references(info) = Integer(info.fetch('missingReferences'))
  def first_broken_lines(info) = info.fetch('firstBrokenLines').map { |x| Integer(x.fetch('line')) }

  def root_count(info) = info.fetch('roots').size

  def pct(n, d) = d.zero? ? 'n/a' : format('%.2f%%', 100.0 * n / d)
end
