#!/usr/bin/env python3
"""The README's test hook (examples/heap_dumps.rb, the file the README tells
users to copy) under forked parallel workers and under RSpec (issue 26, item 7):
a small app with a memo leak, its suite run as `rails new` writes it
(ActiveSupport::TestCase with parallelize(workers: 2), forked processes), then
as an RSpec suite; each run must leave whole A, B, C dumps of one process and
`heapleak check` must find the memo as the one new leak (exit 5), never
broken dumps (exit 6, or a load error of info: docs/exit-codes.md).

  test_parallel_hook.py HEAPLEAK RUBY README WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

HEAPLEAK, RUBY, README, WORK = sys.argv[1:5]
CHECKS = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    CHECKS["passed" if ok else "failed"] += 1
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else f" -- {detail}"))
    return ok


with open(README) as f:
    check("examples/heap_dumps.rb" in f.read(), "the README points to the hook")
with open(os.path.join(os.path.dirname(os.path.abspath(README)), "examples", "heap_dumps.rb")) as f:
    hook = f.read()  # the file the README tells users to copy
if not check("HEAPLEAK_DUMPS" in hook and "RSpec" in hook, "README: the hook is there, for Minitest and RSpec"):
    sys.exit(1)

LEAK = "module Prices\n  @memo = {}\n  def self.quote(sku) = (@memo[sku] ||= \"quote for #{sku}\" * 3)\nend\n"
shutil.rmtree(WORK, ignore_errors=True)


def suite(name, files):
    root = os.path.join(WORK, name)
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    return root


def gate(root, argv, what):
    heap = os.path.join(root, "heap")
    env = dict(os.environ, HEAPLEAK_DUMPS=heap)
    run = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    check(run.returncode == 0, f"{what}: the suite passes", (run.stdout + run.stderr)[-800:])
    dumps = [os.path.join(heap, f"{d}.json") for d in "ABC"]
    if not check(all(os.path.exists(d) for d in dumps), f"{what}: the hook wrote A, B and C",
                 str(os.listdir(heap) if os.path.isdir(heap) else "no dir")):
        return
    check(not [n for n in os.listdir(heap) if n.endswith(".tmp")], f"{what}: no half-written dump left")
    for d in dumps:
        info = subprocess.run([HEAPLEAK, "info", d, "--json"], capture_output=True, text=True, timeout=120)
        report = json.loads(info.stdout) if info.returncode == 0 else {}
        check(report.get("brokenLines") == 0, f"{what}: {os.path.basename(d)} is whole (no broken line)",
              info.stderr[-300:])
    out = subprocess.run([HEAPLEAK, "check", *dumps, "--format", "json"], capture_output=True, text=True,
                         timeout=240)
    report = json.loads(out.stdout) if out.stdout.strip().startswith("{") else {"new": []}
    check(out.returncode == 5, f"{what}: check fails on the leak (exit 5)", f"exit {out.returncode}: {out.stderr[-500:]}")
    sites = [s["site"] for r in report["new"] for o in r["objects"] for s in o["sites"]]
    top = report["new"][0] if report["new"] else {"objects": []}
    top_sites = [s["site"] for o in top["objects"] for s in o["sites"]]
    check(top.get("key") == "Hash in Prices" and os.path.join(root, "lib/prices.rb") + ":3" in top_sites,
          f"{what}: the memo is the first new leak, at lib/prices.rb:3", str([(r["key"], sites) for r in report["new"]]))
    return report


# Minitest through ActiveSupport::TestCase, two forked workers, as `rails new` sets it up.
root = suite("minitest_parallel", {
    "test/support/heap_dumps.rb": hook,
    "lib/prices.rb": LEAK,
    "test/test_helper.rb": (
        "require 'active_support'\nrequire 'active_support/test_case'\nrequire_relative 'support/heap_dumps'\n"
        "require 'minitest/autorun'\nrequire_relative '../lib/prices'\n"
        "class ActiveSupport::TestCase\n  parallelize(workers: 2)\nend\n"),
    "test/prices_test.rb": (
        "require_relative 'test_helper'\n"
        "class PricesTest < ActiveSupport::TestCase\n  60.times do |n|\n"
        "    test(\"quote #{n}\") { 20.times { |i| assert Prices.quote(\"sku-#{n}-#{i}\") } }\n"
        "  end\nend\n"),
})
report = gate(root, [RUBY, "test/prices_test.rb"], "Minitest, parallelize(workers: 2)") or {"new": []}
check([r["key"] for r in report["new"]] == ["Hash in Prices"], "Minitest: the memo is the only new leak",
      str([r["key"] for r in report["new"]]))
with open(os.path.join(root, "heap", ".dumper")) as f:
    dumper = f.read().strip()
check(dumper.isdigit() and int(dumper) != 0, "one worker claimed the dumps", dumper)

# RSpec (Debian's ruby-rspec), the hook required from spec_helper.
rspec = shutil.which("rspec")
if check(rspec is not None, "rspec is installed (ruby-rspec, scripts/deps.sh)"):
    root = suite("rspec", {
        "spec/support/heap_dumps.rb": hook,
        "lib/prices.rb": LEAK,
        "spec/spec_helper.rb": "require 'rspec'\nrequire_relative 'support/heap_dumps'\nrequire_relative '../lib/prices'\n",
        "spec/prices_spec.rb": (
            "require_relative 'spec_helper'\nRSpec.describe Prices do\n  60.times do |n|\n"
            "    it(\"quotes #{n}\") { 20.times { |i| expect(Prices.quote(\"sku-#{n}-#{i}\")).to be_truthy } }\n"
            "  end\nend\n"),
    })
    gate(root, [rspec, "spec/prices_spec.rb"], "RSpec")

print(f"{CHECKS['passed']} passed, {CHECKS['failed']} failed")
sys.exit(1 if CHECKS["failed"] else 0)
