#!/usr/bin/env python3
"""Paths in Ruby's words on real dumps of one Ruby version (tests/rubies/paths).

Runs leaky.rb under CRuby VERSION (the wasm builds through run-ruby.mjs, or
Debian's native ruby for 3.1), then asserts through the one-shot CLI and the
daemon: explain's first leak reads "Hash in UserCache.@cache" from 3.2 on
(4.0: the class's ivars are in its IMEMO:fields object, whose shape names
them; 3.2-3.4: the class's own shape, its references in the GC's marking
order) and "Hash in UserCache" on 3.1 (no shapes); an OBJECT's ivar is named
from 3.2 on (Registry.@sets); no path has an IMEMO:fields hop or a VM internal
first hop; `top` never has a fields object as a row nor counts one as a
class; pathToRoot gives each hop's `via`; the Sets group as `Set` on every
version (an OBJECT on 3.4, typed DATA on 4.0).

usage: paths_test.py HEAPLEAK HEAPLEAKD RUBIES_DIR WORK VERSION
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
from heapleakd import Daemon, check, TestFailure  # noqa: E402


def run(argv, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600, **kw)
    if r.returncode != 0:
        raise TestFailure(f"{' '.join(argv)} exited {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r.stdout


def write_dumps(rubies, work, version):
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    shutil.copy(os.path.join(HERE, "leaky.rb"), work)
    if version == "3.1":
        run(["ruby", os.path.join(work, "leaky.rb"), work])
    else:
        run(["node", "--no-turbo-fast-api-calls", os.path.join(rubies, "run-ruby.mjs"), version,
             "--mount", f"{work}=/out", "/out/leaky.rb"])
    return [os.path.join(work, name) for name in ("A.json", "B.json", "C.json")]


def main():
    heapleak, heapleakd, rubies, work, version = sys.argv[1:6]
    shapes = version != "3.1"
    class_ivars = shapes  # 4.0+ through IMEMO:fields, 3.2-3.4 from the class's shape
    a, b, c = write_dumps(rubies, work, version)

    explain = json.loads(run([heapleak, "explain", a, b, c, "--json"]))
    check(explain["leaks"], f"{version}: explain found no leak: {explain}")
    first = explain["leaks"][0]
    want = "Hash in UserCache.@cache" if class_ivars else "Hash in UserCache"
    check(first["key"] == want, f"{version}: first leak key {first['key']!r}, want {want!r}")
    names = first["pathNames"]
    check(not any("IMEMO" in n for n in names), f"{version}: a VM internal on the path: {names}")
    check(len(names) >= 2 and not names[1].startswith(("DATA:", "IMEMO", "ARRAY")),
          f"{version}: the path's first hop is a VM internal: {names}")
    if class_ivars:
        check(names[-2] == "UserCache.@cache" and names[-1] == "Hash", f"{version}: pathNames {names}")
        check(first["reach"].get("ivar") == "@cache", f"{version}: reach {first['reach']}")
        check(first["pathVia"][-1] == {"ivar": "@cache"}, f"{version}: pathVia {first['pathVia']}")
    else:
        check(names[-2] == "UserCache" and "ivar" not in first["reach"], f"{version}: {names} {first['reach']}")
        check(first["pathVia"][-1] is None, f"{version}: pathVia {first['pathVia']}")
    every_key = [row["key"] for row in explain["leaks"] + explain["noise"]]
    check(not any("IMEMO:fields" in k for k in every_key), f"{version}: a fields row: {every_key}")
    # The Registry's Sets group as Set on every version (3.4: an OBJECT, 4.0: typed DATA).
    set_rows = [row for row in explain["leaks"] if any(o["key"] == "Set" for o in row["objects"])]
    check(set_rows, f"{version}: no leak row holds Set objects: {[r['objects'] for r in explain['leaks']]}")
    sets = set_rows[0]["pathNames"]
    want_sets = "Registry.@sets" if shapes else "Registry"
    check(sets[-2:] == [want_sets, "Array"], f"{version}: the Sets' path {sets}")
    want_key = "Array in Registry.@sets" if shapes else "Array in Registry"
    check(set_rows[0]["key"] == want_key, f"{version}: the Sets' key {set_rows[0]['key']!r}")
    for row in explain["leaks"]:
        check(not any(o["key"] == "DATA:set" for o in row["objects"]), f"{version}: DATA:set group")

    # top: the fields object is part of its owner, never a row or a class of its own.
    for by in ("object", "class"):
        top = json.loads(run([heapleak, "top", c, "--by", by, "--limit", "0", "--json"]))
        rows = top.get("retainers") or top.get("classes") or []
        check(rows, f"{version}: top --by {by} has no rows: {list(top)}")
        check(not any(r.get("key") == "IMEMO:fields" for r in rows), f"{version}: top --by {by} lists IMEMO:fields")

    # The daemon's pathToRoot: the same names, and each hop's `via`.
    holder = first["holder"]["address"]
    with Daemon([heapleakd, "--stdio", "--sync"], stdio=True) as daemon:
        peer = daemon.stdio_peer()
        peer.initialize()
        heap = peer.result("loadHeap", {"path": b})["heap"]
        path = peer.result("pathToRoot", {"heap": heap, "address": holder})
        check(path["path"][-1] == holder, f"{version}: pathToRoot ends at {path['path'][-1:]}")
        check(not any(o["key"] == "IMEMO:fields" for o in path["objects"]), f"{version}: fields hop {path}")
        check(path["pathNames"] == names, f"{version}: pathToRoot {path['pathNames']} != explain {names}")
        if class_ivars:
            check(path["objects"][-1].get("via") == {"ivar": "@cache"}, f"{version}: via {path['objects'][-1]}")
        else:
            check("via" not in path["objects"][-1], f"{version}: a via where the dump says nothing")
        check(not any(o["key"].startswith(("DATA:VM", "IMEMO")) for o in path["objects"]),
              f"{version}: a VM internal on pathToRoot {path['pathNames']}")
        daemon.stop()
    print(f"ok: Ruby {version}: {first['key']}; path {' -> '.join(names)}")


if __name__ == "__main__":
    try:
        main()
    except TestFailure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
