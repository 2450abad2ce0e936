#!/usr/bin/env python3
"""heapleak check's memory budgets (--max-rss-growth, --max-unexplained).

  test_check_memory.py HEAPLEAK FIXTURES MANIFESTS_PY WORKDIR

The fixture's three dumps with capture manifests of version 2 planted beside
them (tests/transcripts/memory_manifests.py: RSS 100 -> 400 MiB, +300 MiB;
malloc free but held +295 MiB, file-backed +0.5 MiB, malloc in use +1 MiB,
so a few MiB unexplained), and the same dumps without manifests. A budget
over the growth passes, one under it fails (exit 5) with its reason in the
text, JSON, SARIF and JUnit reports; a budget without manifests fails, it
cannot be judged. The leaks are within --max-leaked-bytes throughout.
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HEAPLEAK, FIXTURES, MANIFESTS, WORK = sys.argv[1:5]
MiB = 1 << 20
CHECKS = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    CHECKS["passed" if ok else "failed"] += 1
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else f" -- {detail}"))
    return ok


def heapleak(*args):
    run = subprocess.run([HEAPLEAK, *map(str, args)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, HEAPLEAK_NO_CACHE="1"))
    return run.returncode, run.stdout, run.stderr


shutil.rmtree(WORK, ignore_errors=True)
with_manifests, bare = os.path.join(WORK, "with"), os.path.join(WORK, "bare")
for folder in (with_manifests, bare):
    os.makedirs(folder)
    for k, name in enumerate("ABC", 1):
        shutil.copy(os.path.join(FIXTURES, "rbheap-3dump", f"heap{k}.jsonl.gz"), os.path.join(folder, f"{name}.json.gz"))
subprocess.run([sys.executable, MANIFESTS, with_manifests], check=True)
dumps = [os.path.join(with_manifests, f"{name}.json.gz") for name in "ABC"]
bare_dumps = [os.path.join(bare, f"{name}.json.gz") for name in "ABC"]
leaks_ok = ["--max-leaked-bytes", "1GiB"]

code, out, err = heapleak("check", *dumps, *leaks_ok, "--max-rss-growth", "400MiB", "--max-unexplained", "50MB")
check(code == 0, "RSS +300 MiB within --max-rss-growth 400MiB, unexplained within 50MB: exit 0", f"{code}: {out}{err}")
check("memory: RSS +300.0 MiB, unexplained +" in out and "bloat, not a leak" in out,
      "the text report says the memory and its verdict", out)

code, out, err = heapleak("check", *dumps, *leaks_ok, "--max-rss-growth", "200MiB", "--json")
report = json.loads(out) if out else {}
memory = report.get("memory") or {}
check(code == 5, "RSS +300 MiB over --max-rss-growth 200MiB: exit 5", f"{code}: {err}")
check(report.get("verdict") == "fail" and any(r.startswith("RSS grew +300.0 MiB from A to C over --max-rss-growth 200.0 MiB")
                                             for r in report.get("reasons", [])),
      "JSON: the verdict fails, with the reason", json.dumps(report.get("reasons")))
check(memory.get("overRssGrowth") is True and memory.get("rssGrowth") == 300 * MiB and memory.get("verdict") == "fragmentation",
      "JSON: memory {overRssGrowth, rssGrowth, verdict}", json.dumps(memory))
check(report.get("budgets", {}).get("maxRssGrowth") == 200 * MiB, "JSON: budgets.maxRssGrowth", json.dumps(report.get("budgets")))
check("heapleak check: FAIL: RSS grew +300.0 MiB" in err, "stderr names why the gate failed", err)

code, out, err = heapleak("check", *dumps, *leaks_ok, "--max-unexplained", "1MiB", "--format", "junit")
check(code == 5, "a few MiB unexplained over --max-unexplained 1MiB: exit 5", f"{code}: {err}")
suite = ET.fromstring(out)
memory_case = [c for c in suite.iter("testcase") if c.get("classname") == "heapleak.memory"]
failure = memory_case[0].find("failure") if memory_case else None
check(failure is not None and failure.get("type") == "memoryBudget" and "--max-unexplained 1.0 MiB" in failure.get("message", ""),
      "JUnit: heapleak.memory fails with type memoryBudget", out[-800:])

code, out, err = heapleak("check", *dumps, *leaks_ok, "--max-unexplained", "1MiB", "--format", "sarif")
run = json.loads(out)["runs"][0] if code == 5 else {}
check(run.get("properties", {}).get("memory", {}).get("overUnexplained") is True,
      "SARIF: the run's properties carry the memory verdict", json.dumps(run.get("properties"))[:600])

code, out, err = heapleak("check", *bare_dumps, *leaks_ok, "--max-rss-growth", "1GiB")
check(code == 5 and "is not known" in out and "cannot be judged" in out,
      "without manifests a memory budget fails: it cannot be judged", f"{code}: {out}{err}")

code, out, err = heapleak("check", *bare_dumps, *leaks_ok)
check(code == 0 and "memory:" not in out, "without a memory budget nothing changes: exit 0", f"{code}: {out}{err}")

code, out, err = heapleak("check", *dumps, "--max-unexplained", "lots")
check(code == 2 and "--max-unexplained" in err, "a size that is not one: usage, exit 2", f"{code}: {err}")

print(f"{CHECKS['passed']} passed, {CHECKS['failed']} failed")
sys.exit(1 if CHECKS["failed"] else 0)
