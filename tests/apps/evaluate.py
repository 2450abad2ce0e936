#!/usr/bin/env python3
"""evaluate.py - judge heapleak on the leaky applications of tests/apps.

  evaluate.py gen     HEAPLEAK WORK APP MODE   run the app (driver.rb), write WORK/APP-MODE/{A,B,C,truth}.json
  evaluate.py find    HEAPLEAK WORK APP MODE   assert recall 1.0, precision >= 0.99, holder grows, churn bounded
  evaluate.py explain HEAPLEAK WORK APP MODE   assert explain's leaks[0].holder is the truth holder, root answers split
  evaluate.py signature HEAPLEAK WORK APP     assert the first leak row's signature is equal in two runs (traced, untraced)
  evaluate.py report  HEAPLEAK WORK [APP...]   print the table for every app x mode (generating what is missing)
  evaluate.py seeds   HEAPLEAK WORK APP N      `check` against seed 1's baseline passes on seeds 2..N (same code, same verdict)

HEAPLEAK is the built one-shot CLI (CTest passes $<TARGET_FILE:heapleak>). Python 3
standard library only. Exit status 1 when an assertion fails, with one line per failure.
"""

import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
APPS = sorted(f[:-3] for f in os.listdir(os.path.join(HERE, "programs")) if f.endswith(".rb"))
MODES = ("traced", "untraced")
PRECISION_MIN = 0.99
GEN_TIMEOUT_S = 240

ADDR = re.compile(rb'"address":"(0x[0-9a-f]+)"')
GEN = re.compile(rb'"generation":(\d+)')
LENGTH = re.compile(rb'"(?:length|size)":(\d+)')
REFS = re.compile(rb'"references":\[([^\]]*)\]')
BYTESIZE = re.compile(rb'"bytesize":(\d+)')


def run_dir(work, app, mode):
    return os.path.join(work, f"{app}-{mode}")


def generate(work, app, mode):
    out = run_dir(work, app, mode)
    shutil.rmtree(out, ignore_errors=True)  # never judge a previous run's truth
    ruby = os.environ.get("HEAPLEAK_RUBY", "ruby")
    # 1-5 s of CPU; the bound (generous: a box short of memory stalls every process)
    # turns a stuck run into a clear failure
    subprocess.run([ruby, os.path.join(HERE, "driver.rb"), app, out, mode], check=True, timeout=GEN_TIMEOUT_S)
    return out


def heapleak(exe, *args):
    try:
        proc = subprocess.run([exe, *args, "--json"], capture_output=True, text=True)
    except OSError as err:
        raise RuntimeError(f"cannot run {exe}: {err}") from err
    if proc.returncode != 0:
        raise RuntimeError(f"heapleak {' '.join(args[:1])} exited {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def scan(path, wanted=None):
    """address -> (generation or None, length/size or None) for every record (or those in `wanted`)."""
    out = {}
    with open(path, "rb") as f:
        for line in f:
            m = ADDR.search(line)
            if not m:
                continue
            a = m.group(1).decode()
            if wanted is not None and a not in wanted:
                continue
            g = GEN.search(line)
            n = LENGTH.search(line) or (BYTESIZE.search(line) if b'"type":"STRING"' in line else None)
            if n:
                n = int(n.group(1))
            elif wanted is not None:  # a holder with no length (a module, a Ractor): its reference count
                r = REFS.search(line)
                n = r.group(1).count(b",") + 1 if r and r.group(1).strip() else 0
            out[a] = (int(g.group(1)) if g else None, n)
    return out


def load_run(work, app, mode):
    d = run_dir(work, app, mode)
    if not os.path.exists(os.path.join(d, "truth.json")):
        generate(work, app, mode)
    with open(os.path.join(d, "truth.json")) as f:
        truth = json.load(f)
    dumps = {n: os.path.join(d, f"{n}.json") for n in "ABC"}
    return truth, dumps


def measure_find(exe, truth, dumps):
    """Recall, precision and growth figures from `heapleak stats` and the dumps."""
    stats = heapleak(exe, "stats", dumps["A"], dumps["B"], dumps["C"])
    reported = set()
    for g in stats["groups"]:
        reported.update(g["samples"])
    listed_all = len(reported) == stats["total"]["count"]
    b, c = scan(dumps["B"]), scan(dumps["C"])
    lo, hi = truth["window"]
    traced = truth["trace_object_allocations"]

    moved = truth.get("compact_before") == "C"  # addresses in C are not B's: judge by B alone

    def in_window(a):
        gb, gc = b.get(a, (None, None))[0], c.get(a, (None, None))[0]
        if moved:
            return gb is not None and lo <= gb <= hi
        return gc is not None and gb == gc and lo <= gc <= hi

    leak = set(truth["leak"]["addresses"])
    outside = set()
    if traced:  # the walk can reach pre-existing objects first reached in B: not allocated in the window
        outside = {a for a in leak if not in_window(a)}
        leak -= outside
    m = {
        "objects": len(leak),
        "reported": len(reported),
        "listed_all": listed_all,
        "recall": (len(leak & reported) / len(leak)) if leak else None,
        "missed": sorted(leak - reported)[:5],
        "truth_outside_window": len(outside),
        "precision": None,
        "first_group": stats["groups"][0]["key"] if stats["groups"] else None,
        "warnings": stats.get("warnings", []),
    }
    # precision: against the generation window when traced; otherwise against the window
    # the driver measured in-process by object id (also given, as a cross-check, when traced)
    # The in-process walk cannot list every internal object (call caches reachable only
    # through iseqs, hidden finalizer Arrays), so untraced precision judges the reported
    # objects with a Ruby class (not IMEMO, not hidden); `unjudged` counts the others.
    inproc = set(truth["window_objects"]["addresses"])
    if reported:
        if traced:
            judged = reported
            wrong = {a for a in reported if not in_window(a)}
            visible = reported - internal(dumps["B"], reported)
            m["precision_by_object_ids"] = 1 - len(visible - inproc) / len(visible) if visible else None
        else:
            judged = reported - internal(dumps["B"], reported)
            wrong = judged - inproc
            m["unjudged"] = len(reported) - len(judged)
        m["precision"] = 1 - len(wrong) / len(judged) if judged else None
        m["precision_by"] = "generation window" if traced else "object ids in-process (Ruby-visible objects)"
        m["wrong_types"] = wrong_types(dumps["B"], wrong)
    # old objects that grow in place (a String buffer, an Array of immediates): no new
    # objects to find, so stats must list them among its grown objects
    grows = truth.get("grows", [])
    if grows:
        listed = {g.get("address") for g in stats.get("grown", [])}
        m["grown_missed"] = [g["what"] for g in grows if g["address"] not in listed]
    sizes = {}
    replaced = truth.get("replaced", [])
    want = {truth["holder"]["address"], *(x["address"] for x in truth["bounded"]), *(g["address"] for g in grows),
            *(a for x in replaced for a in x["addresses"].values())}
    for n in "ABC":
        s = scan(dumps[n], want)
        sizes[n] = {a: s.get(a, (None, None))[1] for a in want}
    h = truth["holder"]["address"]
    m["holder_growth"] = [sizes[n][h] for n in "ABC"]
    m["bounded"] = [(x["what"], [sizes[n][x["address"]] for n in "ABC"], x.get("cap")) for x in truth["bounded"]]
    m["grows"] = [(g["what"], [sizes[n][g["address"]] for n in "ABC"]) for g in grows]
    # a container replaced by a new one between dumps: its size where it is in each dump
    m["bounded"] += [(x["what"], [sizes[n][x["addresses"][n]] for n in "ABC"], x["cap"]) for x in replaced]
    return m


def internal(path, addrs):
    """the addresses among `addrs` whose record in `path` is an IMEMO or a hidden object (no class)."""
    out = set()
    with open(path, "rb") as f:
        for line in f:
            m = ADDR.search(line)
            if m and m.group(1).decode() in addrs and (b'"type":"IMEMO"' in line or b'"class":' not in line):
                out.add(m.group(1).decode())
    return out


def wrong_types(path, wrong):
    """type counts of the reported objects outside the window, biggest first (for the report)."""
    counts = {}
    typ = re.compile(rb'"type":"([A-Z_]+)"')
    with open(path, "rb") as f:
        for line in f:
            m = ADDR.search(line)
            if m and m.group(1).decode() in wrong:
                t = typ.search(line).group(1).decode()
                if b'"shared":true' in line:
                    t += "(shared)"
                counts[t] = counts.get(t, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])[:4]


def find_failures(truth, m):
    fails = []
    if not m["listed_all"]:
        fails.append("stats --json did not list every reported address (cannot measure recall)")
    if m["truth_outside_window"]:
        fails.append(f"truth self-check: {m['truth_outside_window']} leak-set objects were not allocated in the window")
    leak_free = truth.get("true_leaks") == 0  # nothing may be a leak row; the window set is churn
    if m["objects"] == 0 and not truth.get("grows") and not leak_free:
        fails.append("truth leak set is empty: the app did not leak")
    elif m["recall"] is not None and m["recall"] < truth.get("min_recall", 1.0):
        fails.append(f"recall {m['recall']:.4f} < {truth.get('min_recall', 1.0)} (missed e.g. {m['missed']})")
    # a leak-free app's window is churn: a few old iseqs whose first reference changed read new
    # (the identity rule's, 3 of 71 objects in puma_longpoll); its verdict is explain's rows
    if m["precision"] is not None and m["precision"] < PRECISION_MIN and not leak_free:
        fails.append(f"precision {m['precision']:.4f} < {PRECISION_MIN} (outside the window: {m['wrong_types']})")
    g = m["holder_growth"]
    if truth["holder"]["address"] is None:
        pass  # held by a GC root category (holder_root), no object to grow
    elif truth.get("compact_before") == "C":  # moved by GC.compact: its address in C is another's
        if None in g[:2] or not g[0] < g[1]:
            fails.append(f"holder {truth['holder']['what']} does not grow A->B: {g}")
    elif truth.get("holder_born") == "B":  # created between A and B (A may hold another object at its address)
        if None in g[1:] or not g[1] < g[2]:
            fails.append(f"holder {truth['holder']['what']} does not grow B->C: {g}")
    elif truth.get("holder_grows") is False:  # its growing content is rebuilt: alive in A, B, C is enough
        if None in g:
            fails.append(f"holder {truth['holder']['what']} is not alive in A, B and C: {g}")
    elif None in g or not g[0] < g[1] < g[2]:
        fails.append(f"holder {truth['holder']['what']} does not grow A->B->C: {g}")
    for what, s, cap in m["bounded"]:
        # a container filling up to its cap (a ring buffer) may grow B->C, never past the cap
        if None in s or (s[2] > cap if cap is not None else s[2] > s[1]):
            fails.append(f"benign {what} grows B->C: {s}" + (f" (cap {cap})" if cap is not None else ""))
    for what, s in m.get("grows", []):
        if None in s or not s[0] < s[1] < s[2]:
            fails.append(f"truth self-check: {what} does not grow A->B->C: {s}")
    if m.get("grown_missed"):
        fails.append(f"stats does not list the old objects that grow: {m['grown_missed']}")
    return fails


def measure_explain(exe, truth, dumps):
    ex = heapleak(exe, "explain", dumps["A"], dumps["B"], dumps["C"])
    rows = ex.get("leaks", [])
    first = rows[0] if rows else {}
    got = (first.get("holder") or {}).get("address") if isinstance(first.get("holder"), dict) else None
    # a leak held by many alike holders (one per instance) is one row: its holder may be any of them
    accept = {truth["holder"]["address"], *truth.get("first_row_accept", [])}
    right = got in accept
    if truth["holder"]["address"] is None:  # held by a GC root category, no holder object
        right = bool(first) and got is None and first.get("root") == truth["holder"]["root"]
    if truth.get("true_leaks") == 0:  # a leak-free app: the right first row is none
        right = not rows
    m = {"first_row_right": right, "first_row": first.get("key"), "first_holder": got,
         "leak_rows": ex.get("leakCount"), "noise_rows": ex.get("noiseCount")}
    # GC.compact between the dumps: explain must say that objects moved (issue 41, defect 3),
    # and only then (an evicting cache's refills once read as moved objects)
    m["moved_warned"] = any("moved" in w or "compacted" in w for w in ex.get("warnings", []))
    # a container of benign churn (a cache at its cap, a ring buffer), or a holder a
    # framework filled once (made_once), must never be a leak row
    bounded = {x["address"]: x["what"] for x in truth["bounded"] + truth.get("made_once", [])}
    for x in truth.get("replaced", []):  # neither the replaced container nor its owner
        bounded.update({a: x["what"] for a in [*x["addresses"].values(), x["owner"]]})
    m["bounded_as_leak"] = [bounded[a] for a in ((r.get("holder") or {}).get("address") for r in rows if isinstance(r.get("holder"), dict)) if a in bounded]
    # the leak set is alive (the driver reached it): none of it may be filed as garbage
    # not yet collected (issue 25, defect 4: the class field is a reference)
    leak = set(truth["leak"]["addresses"])
    m["leak_as_garbage"] = sum(len(leak.intersection(r.get("samples") or [])) for r in ex.get("noise", []) if r.get("reason") == "unreachable")
    m["root_right"] = m["root_got"] = None  # an old object that grows in place has no new samples
    # a GC root category holds it: no retainer object to name
    if truth["holder"]["address"] is not None and (truth.get("root") or {}).get("samples"):
        r = heapleak(exe, "root", dumps["B"], *truth["root"]["samples"])
        m["root_right"] = r.get("retainer") in truth["root"]["accept"] and r.get("split") in (None, False)
        m["root_got"] = r.get("retainer")
    sp = truth.get("split")
    m["split_right"] = None
    if sp:
        samples = [s for c in sp["containers"] for s in c["samples"]]
        r = heapleak(exe, "root", dumps["B"], *samples)
        m["split_right"] = split_ok(r, sp)
        m["split_got"] = {"split": r.get("split"), "retainer": r.get("retainer"), "groups": r.get("groups")}
    return m


def split_ok(r, sp):
    """root must say split and give one group per container, each group's samples those of its container."""
    groups = r.get("groups") or []
    if r.get("split") is not True or len(groups) != len(sp["containers"]):
        return False
    for c in sp["containers"]:
        match = [g for g in groups if (g.get("retainer") or {}).get("address") in c["accept"]]
        if len(match) != 1 or set(match[0].get("samples", [])) != set(c["samples"]):
            return False
    return True


def explain_failures(truth, m):
    fails = []
    if not m["first_row_right"] and truth.get("true_leaks") == 0:
        fails.append(f"{m['leak_rows']} leak row(s) for a leak-free app, the first {m['first_row']!r}")
    elif not m["first_row_right"]:
        fails.append(
            f"explain leaks[0].holder.address is {m['first_holder']} (row {m['first_row']!r}), "
            f"want {truth['holder']['address']} ({truth['holder']['what']})"
        )
    if truth.get("compact_before") and not m["moved_warned"]:
        fails.append("GC.compact ran before C and explain's warnings do not say that objects moved")
    if not truth.get("compact_before") and m["moved_warned"]:
        fails.append("nothing compacted the heap, yet explain's warnings say that objects moved")
    if m.get("leak_as_garbage"):
        fails.append(f"{m['leak_as_garbage']} leaked (live) objects filed as garbage not yet collected")
    if m.get("bounded_as_leak"):
        fails.append(f"benign containers reported as leaks: {m['bounded_as_leak']}")
    most = truth.get("true_leaks")
    if most is not None and m["leak_rows"] is not None and m["leak_rows"] > most + 2:
        fails.append(f"{m['leak_rows']} leak rows for {most} true leak(s) (at most two small extra rows)")
    if m["root_right"] is False:
        fails.append(f"root on {len(truth['root']['samples'])} samples named {m['root_got']}, want one of {truth['root']['accept']}")
    if m["split_right"] is False:
        fails.append(f"root on split samples: want split true with one group per container, got {m['split_got']}")
    return fails


def check(part, exe, work, app, mode):
    try:
        truth, dumps = load_run(work, app, mode)
        if part == "find":
            m = measure_find(exe, truth, dumps)
            fails = find_failures(truth, m)
        else:
            m = measure_explain(exe, truth, dumps)
            fails = explain_failures(truth, m)
    except (RuntimeError, OSError, ValueError, KeyError, subprocess.CalledProcessError) as err:
        print(f"FAIL {app} {mode}: {type(err).__name__}: {err}")
        return 1
    print(json.dumps({"app": app, "mode": mode, **m}, default=str))
    for f in fails:
        print(f"FAIL {app} {mode}: {f}")
    return 1 if fails else 0


def fmt(x):
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "NO"
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x)


def report(exe, work, apps):
    head = ("app", "mode", "objects", "recall", "precision", "first row right", "leak rows", "noise rows", "root right", "root split right", "holder A/B/C", "stats first group")
    rows = []
    for app in apps:
        for mode in MODES:
            truth, dumps = load_run(work, app, mode)
            f = measure_find(exe, truth, dumps)
            try:
                e = measure_explain(exe, truth, dumps)
            except RuntimeError as err:
                e = {"first_row_right": False, "root_right": False, "split_right": None, "error": str(err)}
            rows.append((app, mode, f["objects"], fmt(f["recall"]), fmt(f["precision"]), fmt(e["first_row_right"]),
                         fmt(e.get("leak_rows")), fmt(e.get("noise_rows")), fmt(e["root_right"]), fmt(e["split_right"]), "/".join(map(fmt, f["holder_growth"])), f["first_group"]))
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(map(str, r)) + " |")


def same_signature(exe, work, app):
    """Two runs of one program (traced and untraced: other addresses, other
    tracing) must give the first leak row one signature: no addresses in it."""
    rows = {}
    leak_free = False
    for mode in MODES:
        truth, dumps = load_run(work, app, mode)
        leak_free = truth.get("true_leaks") == 0
        ex = heapleak(exe, "explain", dumps["A"], dumps["B"], dumps["C"])
        first = (ex.get("leaks") or [{}])[0]
        rows[mode] = (first.get("signature"), first.get("key"))
    signatures = {sig for sig, _ in rows.values()}
    if leak_free:  # no first row in either run, the same answer both times
        if signatures != {None}:
            print(f"FAIL {app}: a leak-free app has leak rows: {rows}")
            return 1
        print(f"ok {app}: no leak row in both runs")
        return 0
    if None in signatures or len(signatures) != 1:
        print(f"FAIL {app}: the first leak row's signature differs between runs: {rows}")
        return 1
    print(f"ok {app}: signature {signatures.pop()} in both runs")
    return 0


def same_verdict(exe, work, app, seeds):
    """One unchanged program, `seeds` workloads (HEAPLEAK_APP_SEED, untraced): seed 1's
    leak rows are written as the baseline; `heapleak check` against it must pass on
    every other seed (no new leak row: a noise row that turns leak, a bounded cache
    read as growing, a holder of B only, would each fail the gate), and every seed
    must show exactly the app's `true_leaks` leak rows."""
    out = os.path.join(work, f"{app}-seeds")
    shutil.rmtree(out, ignore_errors=True)
    ruby = os.environ.get("HEAPLEAK_RUBY", "ruby")
    baseline = os.path.join(out, "baseline.json")
    fails = []
    for seed in range(1, seeds + 1):
        d = os.path.join(out, f"seed{seed}")
        env = dict(os.environ, HEAPLEAK_APP_SEED=str(seed))
        subprocess.run([ruby, os.path.join(HERE, "driver.rb"), app, d, "untraced"], check=True,
                       timeout=GEN_TIMEOUT_S, env=env, stderr=subprocess.DEVNULL)
        dumps = [os.path.join(d, f"{n}.json") for n in "ABC"]
        args = [exe, "check", *dumps, "--format", "json"]
        args += ["--write-baseline", baseline] if seed == 1 else ["--baseline", baseline]
        proc = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, HEAPLEAK_NO_CACHE="1"))
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = {}
        new = [(r.get("key"), r.get("signature")) for r in report.get("new", [])]
        print(json.dumps({"seed": seed, "exit": proc.returncode, "new": new,
                          "known": [r.get("key") for r in report.get("known", [])]}))
        if proc.returncode != 0:
            fails.append(f"seed {seed}: check exited {proc.returncode} against seed 1's baseline, new rows {new}")
        # and the same verdict must be the right one: as many leak rows as true leaks (a
        # bounded cache called a leak on every seed would be stable, and wrong)
        with open(os.path.join(d, "truth.json")) as f:
            most = json.load(f).get("true_leaks")
        rows = len(new) + len(report.get("known", []))
        if most is not None and rows != most:
            fails.append(f"seed {seed}: {rows} leak rows for {most} true leak(s)")
        shutil.rmtree(d, ignore_errors=True)  # ~30 MB of dumps a seed
    for f in fails:
        print(f"FAIL {app}: {f}")
    if not fails:
        print(f"ok {app}: the same verdict on {seeds} seeds")
    return 1 if fails else 0


def main(argv):
    if len(argv) == 5 and argv[0] == "seeds":
        return same_verdict(os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3], int(argv[4]))
    if len(argv) < 3 or argv[0] not in ("gen", "find", "explain", "report", "signature"):
        print(__doc__, file=sys.stderr)
        return 2
    cmd, exe, work = argv[0], os.path.abspath(argv[1]), os.path.abspath(argv[2])
    if cmd == "report":
        report(exe, work, argv[3:] or APPS)
        return 0
    if cmd == "signature":
        if len(argv) != 4 or argv[3] not in APPS:
            print(f"usage: evaluate.py signature HEAPLEAK WORK APP (APP one of {', '.join(APPS)})", file=sys.stderr)
            return 2
        return same_signature(exe, work, argv[3])
    if len(argv) != 5 or argv[3] not in APPS or argv[4] not in MODES:
        print(f"usage: evaluate.py {cmd} HEAPLEAK WORK APP MODE (APP one of {', '.join(APPS)}; MODE traced|untraced)", file=sys.stderr)
        return 2
    if cmd == "gen":
        try:
            generate(work, argv[3], argv[4])
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
            print(f"FAIL {argv[3]} {argv[4]}: the app run failed: {err}")
            return 1
        return 0
    return check(cmd, exe, work, argv[3], argv[4])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
