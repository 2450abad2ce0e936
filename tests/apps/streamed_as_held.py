#!/usr/bin/env python3
"""streamed_as_held.py - A and C streamed give the answers A and C loaded give (issue 46).

  streamed_as_held.py HEAPLEAK HEAPLEAK_CLIENT HEAPLEAKD WORK APP [APP ...]

`heapleak` streams A and C against B (one byte per object of B, their heaps
read only by the passes that need more: clients/cli/diff_loads.h); so does
heapleakd when a diff names them by path and it has not loaded them
(daemon/streamed_dumps.h); a daemon that has loaded them holds them. On
each app's dumps (tests/apps: both tracing modes), `explain --json --limit
0` and `stats --json` of the three must be the same document but for the
daemon's own keys (heap ids, what it loaded or streamed). The apps
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
DAEMON_ONLY = {"baseline", "target", "later", "loaded", "reloaded", "streamed"}
fails = []


def run(argv):
    doc = run_json(argv, env, fails)
    if doc is None:
        return None
    for key in DAEMON_ONLY:
        doc.pop(key, None)
    # "C was read again with its references" says how C was read (a held
    # C has them already), not what leaked: like the daemon's keys.
    doc["warnings"] = [w for w in doc.get("warnings", []) if "read again with its references" not in w]
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
                daemon = [client, "--socket", socket, "--idle-timeout", "120"]
                stop = [client, "--socket", socket, "stop"]
                daemon_streamed = run([*daemon, *command, *dumps, "--json"])
                subprocess.run(stop, capture_output=True, timeout=60, env=env)
                for dump in dumps:
                    subprocess.run([*daemon, "load", dump], capture_output=True, timeout=120, env=env)
                held = run([*daemon, *command, *dumps, "--json"])
                subprocess.run(stop, capture_output=True, timeout=60, env=env)
                if streamed is None:
                    continue
                for how, other in (("heapleakd streamed", daemon_streamed), ("heapleakd held", held)):
                    if other is None:
                        continue
                    compared += 1
                    for key in sorted(set(streamed) | set(other)):
                        if not same(streamed.get(key), other.get(key)):
                            fails.append(f"{app}-{mode} {command[0]}: '{key}' differs:\n"
                                         f"  heapleak {json.dumps(streamed.get(key))[:400]}\n"
                                         f"  {how} {json.dumps(other.get(key))[:400]}")
    if compared == 0:
        fails.append("no answer was compared")
finally:
    stop_and_report(client, socket, env, fails, tmp)
