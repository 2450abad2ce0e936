#!/usr/bin/env python3
"""heapleak check end to end, on real dumps of tests/check/leaky_program.rb.

  test_check_gate.py HEAPLEAK RUBY PROGRAM SARIF_SCHEMA WORKDIR

The program runs four times: PriceCalculator.@_memo leaking (traced), the
same plus a second leak, EventLog.@entries (traced), the memo leaking three
times as fast (traced), and the first again untraced. Checks the exit codes
(0 within budget, 5 not, 2 usage, 3 bad input, 6 a failed write), that a baseline written from
the first run makes it pass and makes only the second leak new in the
second run, fixed and grown leaks, the --report page, SARIF validated against the official
2.1.0 schema (python3-jsonschema) with sites relative to --source-root, and
JUnit XML parsed with its counts.
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

try:
    import jsonschema
except ImportError:
    sys.exit("FAIL python3-jsonschema is missing: run scripts/deps.sh")

HEAPLEAK, RUBY, PROGRAM, SCHEMA, WORK = sys.argv[1:6]
CHECKS = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    CHECKS["passed" if ok else "failed"] += 1
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else f" -- {detail}"))
    return ok


def heapleak(*args):
    run = subprocess.run([HEAPLEAK, *map(str, args)], capture_output=True, text=True, timeout=240)
    return run.returncode, run.stdout, run.stderr


def check_exit(args, want, what):
    code, out, err = heapleak(*args)
    check(code == want, f"{what}: exit {want}", f"got {code}: {err.strip()[:400]}")
    return out, err


def dumps(name, trace, second, scale):
    out = os.path.join(WORK, name)
    os.makedirs(out)
    subprocess.run([RUBY, SRC_PROGRAM, out, trace, second, scale], check=True, timeout=240)
    return [os.path.join(out, f"{d}.json") for d in "ABC"]


def line_of(marker):
    with open(SRC_PROGRAM) as f:
        return next(n for n, line in enumerate(f, 1) if marker in line)


def by_key(rows, word):
    return [r for r in rows if word in r["key"]]


shutil.rmtree(WORK, ignore_errors=True)
SRC = os.path.join(WORK, "src")  # the --source-root: the program lives under it
os.makedirs(os.path.join(SRC, "app"))
SRC_PROGRAM = os.path.join(SRC, "app", "leaky_program.rb")
shutil.copy(PROGRAM, SRC_PROGRAM)
one = dumps("one", "1", "0", "1")
two = dumps("two", "1", "1", "1")
grown = dumps("grown", "1", "0", "3")
untraced = dumps("untraced", "0", "0", "1")
base = os.path.join(WORK, "base.json")

# 1. No baseline, no budget: the memo is a new leak and fails; budgets decide.
out, _ = check_exit(["check", *one], 5, "one leak, no budget")
check(out.startswith("heapleak check: FAIL: 1 new leak"), "text: the first line is the verdict",
      out.splitlines()[0] if out else "")
check("with no budget, any new leak fails" in out, "text: says why it failed")
check_exit(["check", *one, "--max-leaked-bytes", "100MiB"], 0, "within --max-leaked-bytes 100MiB")
check_exit(["check", *one, "--max-leaked-bytes", "1KiB"], 5, "over --max-leaked-bytes 1KiB")
check_exit(["check", *one, "--max-leaked-objects", "100000"], 0, "within --max-leaked-objects")
check_exit(["check", *one, "--max-leaked-objects", "1"], 5, "over --max-leaked-objects 1")

# 2. --write-baseline accepts the leak; checking again against it passes.
out, err = check_exit(["check", *one, "--write-baseline", base], 0, "--write-baseline")
check("wrote 1 accepted leak" in err, "--write-baseline says what it wrote", err)
with open(base) as f:
    text = f.read()
baseline = json.loads(text)
check(baseline.get("heapleakBaseline") == 1, "baseline: versioned")
entries = baseline.get("leaks", [])
check(len(entries) == 1 and "PriceCalculator" in entries[0]["key"], "baseline: the memo's row",
      str(entries))
check([e["signature"] for e in entries] == sorted(e["signature"] for e in entries),
      "baseline: sorted by signature")
check(len(text.splitlines()) == 5 + len(entries), "baseline: one entry a line", text)
memo_signature = entries[0]["signature"] if entries else ""
out, _ = check_exit(["check", *one, "--baseline", base, "--format", "json"], 0, "the same dumps against the baseline")
report = json.loads(out)
check(report["verdict"] == "pass" and not report["new"] and len(report["known"]) == 1,
      "json: pass, no new leak, one known", json.dumps(report)[:300])
out_json, _ = check_exit(["check", *one, "--baseline", base, "--json"], 0, "--json, as every JSON printer takes")
check(json.loads(out_json) == report, "check --json prints what --format json does", out_json[:300])

# 3. A second run with a second leak: only that one is new (signatures are
# stable across runs of the same program), and the gate fails.
out, _ = check_exit(["check", *two, "--baseline", base, "--format", "json"], 5, "a second, different leak")
report = json.loads(out)
new_keys = [r["key"] for r in report["new"]]
check(new_keys == ["Array in EventLog"], "only the EventLog leak is new", str(new_keys))
check([r["signature"] for r in report["known"]] == [memo_signature], "the memo is known by its signature",
      str([(r["key"], r["signature"]) for r in report["known"]]))
check(report["newLeaks"]["rows"] == 1 and report["newLeaks"]["count"] >= 50, "json: newLeaks totals",
      str(report["newLeaks"]))
check(all(r["failed"] for r in report["new"]) and not any(r["failed"] for r in report["known"]),
      "json: the new row fails, the known one does not")
check(report["new"] and report["new"][0]["objects"][0]["sites"], "json: rows as explain gives them (sites)")
check(all("reason" in r for r in report["noise"]), "json: noise rows carry their reason")
check_exit(["check", *two, "--baseline", base, "--max-leaked-bytes", "1MiB"], 0,
           "the new leak within a budget of 1MiB")

# 4. Fixed: a baseline from the second run, checked on the first.
base2 = os.path.join(WORK, "base2.json")
check_exit(["check", *two, "--write-baseline", base2, "--format", "json"], 0, "baseline of both leaks")
out, _ = check_exit(["check", *one, "--baseline", base2, "--format", "json"], 0, "a leak gone is not a failure")
report = json.loads(out)
check([e["key"] for e in json.loads(out)["fixed"]] == ["Array in EventLog"], "the EventLog leak is fixed",
      str(report["fixed"]))
out, _ = check_exit(["check", *one, "--baseline", base2], 0, "text with a fixed leak")
check("Fixed (in the baseline, no longer seen):" in out and "Array in EventLog" in out, "text: lists the fixed leak")

# 5. Growth: the memo three times as fast is reported, and fails only with the flag.
out, _ = check_exit(["check", *grown, "--baseline", base, "--format", "json"], 0, "a known leak that grew")
report = json.loads(out)
known = report["known"][0] if report["known"] else {}
check(known.get("grew") is True and known.get("growthFactor", 0) > 2.5, "json: grew, about 3x",
      str({k: known.get(k) for k in ("grew", "growthFactor")}))
check_exit(["check", *grown, "--baseline", base, "--fail-on-growth", "2"], 5, "--fail-on-growth 2")
check_exit(["check", *grown, "--baseline", base, "--fail-on-growth", "10"], 0, "--fail-on-growth 10")

# 6. SARIF: valid against the official schema, located at the sites.
with open(SCHEMA) as f:
    schema = json.load(f)
validator = jsonschema.Draft4Validator(schema)
sarif_path = os.path.join(WORK, "two.sarif")
_, err = check_exit(["check", *two, "--baseline", base, "--format", "sarif", "--source-root", SRC,
                     "--output", sarif_path], 5, "sarif to --output")
check(err.startswith("heapleak check: FAIL"), "the verdict goes to stderr when the report goes to a file", err)
with open(sarif_path) as f:
    sarif = json.load(f)
errors = sorted(validator.iter_errors(sarif), key=lambda e: list(e.path))
relative = subprocess.run([HEAPLEAK, "check", *two, "--baseline", base, "--format", "sarif", "--source-root", "."],
                          capture_output=True, text=True, cwd=SRC, timeout=240)
check(relative.returncode == 5 and json.loads(relative.stdout) == sarif,
      "a relative --source-root (.) is made absolute: the same SARIF", relative.stderr)
check(not errors, "SARIF validates against sarif-2.1.0-rtm.5.json",
      "; ".join(f"{list(e.path)}: {e.message[:150]}" for e in errors[:5]))
run = sarif["runs"][0]
results = [r for r in run["results"] if r["ruleId"] == "heapleak/leak"]
states = {r["properties"]["holder"]: r["baselineState"] for r in results}
check(states == {"Array in EventLog": "new", "Hash in PriceCalculator": "unchanged"}, "SARIF: baselineState",
      str(states))
check(all(r["partialFingerprints"]["heapleakSignature/v1"] == r["properties"]["signature"] for r in results),
      "SARIF: partialFingerprints carry the signature")
memo = next((r for r in results if "PriceCalculator" in r["properties"]["holder"]), None)
sites = [(loc["physicalLocation"]["artifactLocation"], loc["physicalLocation"].get("region", {}).get("startLine"))
         for loc in (memo or {}).get("locations", []) if "physicalLocation" in loc]
want = ({"uri": "app/leaky_program.rb", "uriBaseId": "SRCROOT"}, line_of("QUOTE_SITE"))
check(want in sites, "SARIF: the memo is located at Quote.new, relative to %SRCROOT%", str(sites))
check(run.get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri") == "file://" + SRC + "/",
      "SARIF: SRCROOT is the source root")
check(memo and "allocated here are held by Hash in PriceCalculator" in memo["message"]["text"],
      "SARIF: the message names the holder", memo and memo["message"]["text"])
noise = [r for r in run["results"] if r["ruleId"].startswith("heapleak/noise/")]
check(all(r["level"] == "note" for r in noise), "SARIF: noise rows are notes")

out, err = check_exit(["check", *untraced, "--format", "sarif"], 5, "sarif of an untraced dump")
check("no allocation sites" in err and "trace_object_allocations_start" in err,
      "untraced SARIF: a warning says how to get sites", err)
sarif = json.loads(out)
errors = list(validator.iter_errors(sarif))
check(not errors, "untraced SARIF validates", "; ".join(e.message[:150] for e in errors[:3]))
leaks = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "heapleak/leak"]
check(leaks and all("physicalLocation" not in loc and loc["logicalLocations"] for r in leaks for loc in r["locations"]),
      "untraced SARIF: logical locations only")

# 7. JUnit: well-formed, one testcase per row and the budget case.
out, _ = check_exit(["check", *two, "--baseline", base, "--format", "junit"], 5, "junit")
_, json_out, _ = heapleak("check", *two, "--baseline", base, "--format", "json")
report = json.loads(json_out)
try:
    suites = ET.fromstring(out)
    suite = suites.find("testsuite")
    cases = suite.findall("testcase")
    rows = len(report["new"]) + len(report["known"]) + len(report["noise"])
    check(len(cases) == rows + 1 == int(suite.get("tests")), "JUnit: one testcase per row + budget",
          f"{len(cases)} cases, {rows} rows, tests={suite.get('tests')}")
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    check(len(failed) == 2 == int(suite.get("failures")) and "within budget" in failed
          and any("EventLog" in n for n in failed), "JUnit: the new leak and the budget fail", str(failed))
    check(len([c for c in cases if c.find("skipped") is not None]) == len(report["noise"]) == int(suite.get("skipped")),
          "JUnit: noise rows are skipped")
except ET.ParseError as e:
    check(False, "JUnit parses", str(e))

# 8. Bad input: clear errors, distinct codes (docs/exit-codes.md).
_, err = check_exit(["check", *one, "--baseline", os.path.join(WORK, "missing.json")], 3, "missing baseline")
check("missing.json" in err, "missing baseline: named", err)
bad = os.path.join(WORK, "bad.json")
with open(bad, "w") as f:
    f.write('{"heapleakBaseline": 1, "leaks": [{"signature": "xyz"}]}')
_, err = check_exit(["check", *one, "--baseline", bad], 7, "malformed baseline (corruptInput)")
check("not a heapleak baseline" in err and "leaks[0].signature" in err, "malformed baseline: says what", err)
check_exit(["check", *one, "--format", "html"], 2, "unknown --format")
check_exit(["check", *one, "--max-leaked-bytes", "lots"], 2, "a size that is not one")
check_exit(["check", *one, "--fail-on-growth", "0.5"], 2, "a growth factor under 1")
check_exit(["check", one[0]], 2, "one dump")
check_exit(["check", *one[:2], os.path.join(WORK, "nope.json")], 6, "a missing dump: the gate cannot judge")
check_exit(["check", *one, "--baseline", WORK], 14, "a baseline that is a directory (notReadable)")
# 8b. The report and the baseline are never lost silently: a failed write
# (at close too: /dev/full takes the buffered bytes and fails the flush) has
# its own exit code, a baseline is replaced only whole, and the report is
# never written over the baseline.
_, err = check_exit(["check", *one, "-o", "/dev/full"], 6, "the report to /dev/full")
check("cannot write /dev/full" in err, "the report to /dev/full: says so", err)
_, err = check_exit(["check", *one, "--format", "junit", "--output", "/dev/full"], 6, "junit to /dev/full")
full = subprocess.run(f"'{HEAPLEAK}' check '{one[0]}' '{one[1]}' '{one[2]}' >/dev/full", shell=True,
                      capture_output=True, text=True, timeout=240)
check(full.returncode == 6, "the report on stdout to /dev/full: exit 6", f"got {full.returncode}")
with open(base) as f:
    kept = f.read()
check_exit(["check", *one, "--baseline", base, "-o", base], 2, "-o over the --baseline")
check_exit(["check", *one, "--write-baseline", base, "-o", os.path.join(WORK, ".", "base.json")], 2,
           "-o over the --write-baseline")
with open(base) as f:
    check(f.read() == kept, "the baseline is left as it was")
taken = os.path.join(WORK, "taken")  # a rename over a directory fails after the write
os.makedirs(os.path.join(taken, "x"))
check_exit(["check", *one, "--write-baseline", taken], 6, "a baseline that cannot be put in place")
check(os.listdir(taken) == ["x"] and not [n for n in os.listdir(WORK) if ".tmp." in n],
      "no temporary file is left behind", str(os.listdir(WORK)))
# 8c. --report: heapleak report's page beside the verdict (the exit is the
# verdict's), never over the baseline, not written when the gate cannot judge.
page = os.path.join(WORK, "leaks.html")
check_exit(["check", *one, "--report", page], 5, "--report: the verdict's exit")
with open(page, encoding="utf-8") as f:
    html = f.read()
check(html.startswith("<!DOCTYPE html>") and "PriceCalculator" in html
      and html.count('id="heapleak-data"') == 1, "--report: the page, with the leak", html[:200])
check_exit(["check", *one, "--baseline", base, "--report", base], 2, "--report over the --baseline")
with open(base) as f:
    check(f.read() == kept, "the baseline is left as it was by --report")
os.remove(page)
check_exit(["check", *one[:2], os.path.join(WORK, "nope.json"), "--report", page], 6, "--report, a missing dump")
check(not os.path.exists(page), "--report: no page when the gate cannot judge")
out, _ = check_exit(["check", "--help"], 0, "--help")
check("exit" in out.lower() and "--baseline" in out, "--help documents the flags and exit codes")

# 9. The README's test-suite hook (examples/heap_dumps.rb, which the README
# tells users to copy) takes real dumps from a Minitest run.
README = os.path.join(os.path.dirname(os.path.abspath(PROGRAM)), "..", "..", "README.md")
with open(README) as f:
    readme = f.read()
with open(os.path.join(os.path.dirname(os.path.abspath(README)), "examples", "heap_dumps.rb")) as f:
    hook = f.read()  # the file the README tells users to copy
if check("HEAPLEAK_DUMPS" in hook, "README: the Minitest hook is there"):
    suite = os.path.join(WORK, "suite")
    for d in ("test/support", "lib", "heap"):
        os.makedirs(os.path.join(suite, d))
    files = {
        "test/support/heap_dumps.rb": hook,
        "lib/prices.rb": "module Prices\n  @memo = {}\n  def self.quote(sku) = (@memo[sku] ||= \"quote for #{sku}\" * 3)\nend\n",
        "test/prices_test.rb": (
            "require_relative 'support/heap_dumps'\nrequire 'minitest/autorun'\nrequire_relative '../lib/prices'\n"
            "class PricesTest < Minitest::Test\n  30.times do |n|\n"
            "    define_method(\"test_quote_#{n}\") { 20.times { |i| assert Prices.quote(\"sku-#{n}-#{i}\") } }\n"
            "  end\nend\n"),
    }
    for name, text in files.items():
        with open(os.path.join(suite, name), "w") as f:
            f.write(text)
    env = dict(os.environ, HEAPLEAK_DUMPS=os.path.join(suite, "heap"))
    subprocess.run([RUBY, os.path.join(suite, "test/prices_test.rb")], check=True, env=env, timeout=240,
                   capture_output=True)
    suite_dumps = [os.path.join(suite, "heap", f"{d}.json") for d in "ABC"]
    check(all(os.path.exists(d) for d in suite_dumps), "the hook wrote A, B and C")
    out, _ = check_exit(["check", *suite_dumps, "--format", "json"], 5, "the gate on the suite's dumps")
    report = json.loads(out) if out else {"new": []}
    sites = [s["site"] for r in report["new"] for o in r["objects"] for s in o["sites"]]
    check([r["key"] for r in report["new"]] == ["Hash in Prices"] and
          os.path.join(suite, "lib/prices.rb") + ":3" in sites, "the memo is the one new leak, at lib/prices.rb:3",
          str([(r["key"], sites) for r in report["new"]]))

print(f"{CHECKS['passed']} passed, {CHECKS['failed']} failed")
sys.exit(1 if CHECKS["failed"] else 0)
