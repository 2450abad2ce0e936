#!/usr/bin/env python3
# bench/latency: round-trip latency of heapleakd queries on resident ~300 MB
# heaps, measured by a client on the unix socket (Python 3 stdlib only).
#
#   bench/latency/latency.py [--daemon PATH] [--dumps DIR] [--n 1000]
#
# Uses the A/B/C dumps of bench/out/cc300 (bench/run.sh writes them; if absent
# they are generated with `tests/gen/leakgen.rb class_cache medium`, ~1 min,
# ~2 GB RAM). Starts `heapleakd --listen unix:...` (default: the release build
# in build/release, configured and built if missing), loads the three dumps,
# then times one request at a time: stats (3 heaps), root (the scenario's
# sample addresses), object and referrers (1,000 different leaked addresses).
# Prints median / p99 / max per method. stats runs fewer times when slow (at
# most --stats-seconds in total) and the table says how many.
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(600)
        self.sock.connect(path)
        self.buf = b""
        self.next_id = 0

    def call(self, method, params=None):
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params or {}}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        while True:
            message = self._read()
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def _read(self):
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                length = int(self.buf[:end].split(b":", 1)[1])
                if len(self.buf) >= end + 4 + length:
                    body = self.buf[end + 4:end + 4 + length]
                    self.buf = self.buf[end + 4 + length:]
                    return json.loads(body)
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("heapleakd closed the connection")
            self.buf += chunk


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure(client, method, params_list):
    times = []
    for params in params_list:
        started = time.perf_counter()
        client.call(method, params)
        times.append((time.perf_counter() - started) * 1000)
    return times


def ensure_dumps(directory):
    if all(os.path.exists(os.path.join(directory, f)) for f in ("A.json", "B.json", "C.json", "truth.json")):
        return
    print(f"generating {directory} (class_cache medium, ~1 min)...", flush=True)
    subprocess.run(["nice", "ruby", os.path.join(ROOT, "tests/gen/leakgen.rb"), "class_cache", "medium", directory],
                   check=True)


def ensure_daemon(path):
    if path:
        return os.path.abspath(path)
    path = os.path.join(ROOT, "build/release/daemon/heapleakd")
    if not os.path.exists(path):
        subprocess.run(["cmake", "--preset", "release"], cwd=ROOT, check=True)
        subprocess.run(["cmake", "--build", "build/release", "-j2", "--target", "heapleakd"], cwd=ROOT, check=True)
    return path


def main():
    p = argparse.ArgumentParser(description="heapleakd round-trip latency")
    p.add_argument("--daemon", help="heapleakd to bench (default: build/release, built if missing)")
    p.add_argument("--dumps", default=os.path.join(ROOT, "bench/out/cc300"))
    p.add_argument("--n", type=int, default=1000, help="requests per method")
    p.add_argument("--stats-seconds", type=float, default=120, help="time budget for the stats runs")
    args = p.parse_args()
    daemon = ensure_daemon(args.daemon)
    ensure_dumps(args.dumps)
    truth = json.load(open(os.path.join(args.dumps, "truth.json")))

    tmp = tempfile.mkdtemp(prefix="hl-lat-")
    sock = os.path.join(tmp, "s.sock")
    proc = subprocess.Popen([daemon, "--listen", "unix:" + sock], stderr=open(os.path.join(tmp, "log"), "wb"))
    try:
        deadline = time.monotonic() + 30
        while True:  # the socket file appears a moment before the daemon accepts
            try:
                c = Client(sock)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"heapleakd did not start; see {tmp}/log")
                time.sleep(0.05)
        c.call("initialize", {"clientInfo": {"name": "bench/latency"}})
        heaps = {}
        for name in ("A", "B", "C"):
            path = os.path.join(args.dumps, name + ".json")
            started = time.perf_counter()
            loaded = c.call("loadHeap", {"path": path, "name": name})
            heaps[name] = loaded["heap"]
            print(f"loaded {name}.json: {os.path.getsize(path) / 1e6:.0f} MB, {loaded['objects']:,} objects, "
                  f"{loaded['residentBytes'] / 1e6:.0f} MB resident, {time.perf_counter() - started:.2f} s round trip",
                  flush=True)

        stats_params = {"baseline": heaps["A"], "target": heaps["B"], "later": heaps["C"], "samples": 50}
        first = c.call("stats", stats_params)
        leaked = [o["address"] for o in truth["leak"]["objects"]]
        spread = leaked[::max(1, len(leaked) // args.n)]  # every k-th: all kinds of leaked objects
        addresses = (spread * (args.n // max(1, len(spread)) + 1))[:args.n]
        root_samples = truth["root"]["samples"]
        print(f"stats: {first['total']['count']:,} objects in {len(first['groups'])} groups; "
              f"root: {len(root_samples)} samples; object/referrers: {len(set(addresses))} different addresses",
              flush=True)

        # stats: as many runs as fit in the budget (estimated from the first one).
        one = measure(c, "stats", [stats_params])[0]
        stats_n = max(10, min(args.n, int(args.stats_seconds * 1000 / max(one, 0.001))))
        rows = [("stats (3 heaps)", measure(c, "stats", [stats_params] * stats_n))]
        rows.append(("root", measure(c, "root", [{"heap": heaps["B"], "addresses": root_samples}] * args.n)))
        rows.append(("object", measure(c, "object", [{"heap": heaps["B"], "address": a} for a in addresses])))
        rows.append(("referrers", measure(c, "referrers", [{"heap": heaps["B"], "address": a} for a in addresses])))

        print()
        print(f"{'method':<16} {'n':>5} {'median ms':>10} {'p99 ms':>10} {'max ms':>10}")
        for name, times in rows:
            print(f"{name:<16} {len(times):>5} {statistics.median(times):>10.3f} {percentile(times, 99):>10.3f} "
                  f"{max(times):>10.3f}")
        if stats_n < args.n:
            print(f"(stats: {stats_n} runs, not {args.n}: each takes ~{one:.0f} ms; budget {args.stats_seconds:.0f} s)")
        c.call("stopDaemon")
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
