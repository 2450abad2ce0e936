#!/usr/bin/env python3
"""streamed_as_held.py - A and C streamed give the answers A and C loaded give (issue 46).

  streamed_as_held.py HEAPLEAK HEAPLEAK_CLIENT HEAPLEAKD WORK APP [APP ...]

`heapleak` streams A and C against B (one byte per object of B, their heaps
read only by the passes that need more: clients/cli/diff_loads.h); heapleakd
holds them loaded. On each app's dumps (tests/apps: both tracing modes),
`explain --json --limit 0` and `stats --json` of both must be the same
document but for the daemon's own keys (heap ids, what it loaded). The apps
chosen are those whose answers read more of A and C than "was it there":
growth, eviction, rebuilt and replaced entries, grown objects, prepended
modules, Threads, objects moved between B and C. Exit 1 with one line per
failure."""
import json
import math
import os
import subprocess
import sys
import tempfile

from json_runs import run_json, stop_and_report

heapleak, client, heapleakd, work, *apps = sys.argv[1:]
tmp = tempfile.mkdtemp(prefix="hls-")  # short: a unix socket path
env = dict(os.environ, HEAPLEAKD=heapleakd, HEAPLEAK_NO_CACHE="1", NO_COLOR="1")
socket = os.path.join(tmp, "d.sock")
DAEMON_ONLY = {"baseline", "target", "later", "loaded", "reloaded"}
fails = []


def run(argv):
    doc = run_json(argv, env, fails)
    if doc is None:
        return None
    for key in DAEMON_ONLY:
        doc.pop(key, None)
    # A reread's warning says how long it took: the same sentence otherwise.
    doc["warnings"] = [w.split(" (")[0] if "read again" in w else w for w in doc.get("warnings", [])]
    return doc


def same(x, y):
    """Equal, but for the last digit of a double (the client prints the
    daemon's numbers again, in its own shortest form)."""
    if isinstance(x, float) or isinstance(y, float):
        return isinstance(x, (int, float)) and isinstance(y, (int, float)) and math.isclose(x, y, rel_tol=1e-12)
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y))
    return x == y


try:
    compared = 0
    for app in apps:
        for mode in ("traced", "untraced"):
            dumps = [os.path.join(work, f"{app}-{mode}", f"{n}.json") for n in "ABC"]
            for command in (["explain", "--limit", "0"], ["stats"]):
                streamed = run([heapleak, *command, *dumps, "--json"])
                # A daemon of its own per answer: one that read C again with
                # its references keeps it, and would not say so twice.
                held = run([client, "--socket", socket, "--idle-timeout", "120", *command, *dumps, "--json"])
                subprocess.run([client, "--socket", socket, "stop"], capture_output=True, timeout=60, env=env)
                if streamed is None or held is None:
                    continue
                compared += 1
                for key in sorted(set(streamed) | set(held)):
                    if not same(streamed.get(key), held.get(key)):
                        fails.append(f"{app}-{mode} {command[0]}: '{key}' differs:\n"
                                     f"  streamed {json.dumps(streamed.get(key))[:400]}\n"
                                     f"  held     {json.dumps(held.get(key))[:400]}")
    if compared == 0:
        fails.append("no answer was compared")
finally:
    stop_and_report(client, socket, env, fails, tmp)
