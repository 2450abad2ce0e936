#!/usr/bin/env python3
"""heapleak check never passes on evidence it could not read (issue 26, items
3 and 4): a dump cut short (plain or gzip), corrupt or missing, or dumps that
are not one series (A from another process, C B A out of order) give exit 6
and the verdict "error" in every format (text, json, SARIF valid against the
official schema, JUnit); `heapleak explain` says the series problem too,
never "the dumps look compacted" for another process.

  test_check_evidence.py HEAPLEAK RUBY PROGRAM SARIF_SCHEMA WORKDIR
"""
import gzip
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
ERROR = 6


def check(ok, what, detail=""):
    CHECKS["passed" if ok else "failed"] += 1
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else f" -- {detail}"))
    return ok


def heapleak(*args):
    run = subprocess.run([HEAPLEAK, *map(str, args)], capture_output=True, text=True, timeout=240)
    return run.returncode, run.stdout, run.stderr


def dumps(name):
    out = os.path.join(WORK, name)
    os.makedirs(out)
    subprocess.run([RUBY, PROGRAM, out, "1", "0", "1"], check=True, timeout=240)
    return [os.path.join(out, f"{d}.json") for d in "ABC"]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
env_cache = os.path.join(WORK, "cache")
os.environ["HEAPLEAK_CACHE_DIR"] = env_cache
with open(SCHEMA) as f:
    validator = jsonschema.Draft4Validator(json.load(f))

run1 = dumps("run1")
run2 = dumps("run2")
A, B, C = run1

code, out, err = heapleak("check", A, B, C)
check(code == 5 and out.startswith("heapleak check: FAIL"), "one series: judged (exit 5, the memo leak)", err)


def all_formats(dumps_, what, words):
    """Every format: exit 6 and the verdict error, saying `words`."""
    code, out, err = heapleak("check", *dumps_)
    check(code == ERROR, f"{what}: text: exit 6", f"got {code}: {err[:300]}")
    check(out.startswith("heapleak check: ERROR: the dumps cannot be judged") and words in out,
          f"{what}: text: ERROR first, says '{words}'", out[:400])
    check("PASS" not in out, f"{what}: never PASS", out[:200])
    code, out, err = heapleak("check", *dumps_, "--format", "json")
    report = json.loads(out) if out.strip().startswith("{") else {}
    check(code == ERROR and report.get("verdict") == "error" and words in " ".join(report.get("reasons", [])),
          f"{what}: json: verdict error", out[:300])
    check("heapleak check: ERROR" in err, f"{what}: json: the verdict line on stderr", err[-300:])
    sarif_path = os.path.join(WORK, "r.sarif")
    code, _, err = heapleak("check", *dumps_, "--format", "sarif", "-o", sarif_path)
    with open(sarif_path) as f:
        sarif = json.load(f)
    problems = [e.message for e in validator.iter_errors(sarif)]
    run = sarif["runs"][0]
    check(code == ERROR and not problems and run["properties"]["verdict"] == "error"
          and run["invocations"][0]["executionSuccessful"] is False and run["results"] == [],
          f"{what}: sarif: valid, verdict error, execution not successful", str(problems[:3]))
    code, out, _ = heapleak("check", *dumps_, "--format", "junit")
    try:
        suite = ET.fromstring(out).find("testsuite")
        check(code == ERROR and suite.get("errors") == "1" and suite.find("testcase/error") is not None
              and words in suite.find("testcase/error").get("message"), f"{what}: junit: one error", out[:300])
    except ET.ParseError as e:
        check(False, f"{what}: junit parses", str(e))


cut = os.path.join(WORK, "cut")
os.makedirs(cut)
# B cut short, plain: the process died while dumping.
with open(B, "rb") as f:
    data = f.read()
cut_b = os.path.join(cut, "B.json")
with open(cut_b, "wb") as f:
    f.write(data[: len(data) // 2])
all_formats([A, cut_b, C], "B cut short (plain)", "truncated")
# C cut short, gzip.
with open(C, "rb") as f:
    gz = gzip.compress(f.read())
cut_c = os.path.join(cut, "C.json.gz")
with open(cut_c, "wb") as f:
    f.write(gz[: len(gz) // 2])
all_formats([A, B, cut_c], "C cut short (gzip)", "truncated")
# Corrupt gzip: bytes overwritten in the middle of the stream.
bad_c = os.path.join(cut, "C-corrupt.json.gz")
with open(bad_c, "wb") as f:
    f.write(gz[:200] + b"\x00" * 512 + gz[712:])
all_formats([A, B, bad_c], "C corrupt (gzip)", "C-corrupt.json.gz")
# Missing.
all_formats([A, B, os.path.join(cut, "nope.json")], "C missing", "nope.json")
# A from another process.
all_formats([run2[0], B, C], "A from another process", "not from one process")
# Out of order.
all_formats([C, B, A], "C B A", "out of order")

# explain says the same, and not that the dumps look compacted.
code, out, err = heapleak("explain", run2[0], B, C)
check("not from one process" in err and "look compacted" not in err,
      "explain: another process is said as such, not as compaction", err[-500:])
code, out, err = heapleak("stats", C, B, A)
check("out of order" in err, "stats: C B A is said out of order", err[-500:])

print(f"{CHECKS['passed']} passed, {CHECKS['failed']} failed")
sys.exit(1 if CHECKS["failed"] else 0)
