#!/usr/bin/env python3
"""Drive heapleakd over stdio with nothing but the Python standard library.

    python3 examples/drive_heapleakd.py [--heapleakd PATH] [A B C]

Spawns `heapleakd --stdio`, speaks JSON-RPC 2.0 in LSP Content-Length frames,
loads three dumps (default: the rbheap fixtures) and asks `explain` for the
leaks, one row per leak: the object that holds it (the holder), how Ruby
reaches it, its growth, what it holds and where that was allocated. Then, to
dig into the first row, `root` on a few of its leaked objects: their nearest
common retainer, which is the row's holder.
heapleakd is --heapleakd, else $HEAPLEAKD, else found on PATH.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures", "rbheap-3dump")


class Daemon:
    """One heapleakd --stdio child and the JSON-RPC conversation with it."""

    def __init__(self, binary):
        self.proc = subprocess.Popen([binary, "--stdio", "--log=error"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 1

    def send(self, message):
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def receive(self):
        length = None
        while True:  # headers end with an empty line
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("heapleakd closed its stdout")
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params=None):
        request_id = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            reply = self.receive()
            if reply.get("method") == "$/progress":
                value = reply["params"]["value"]
                if value["kind"] == "begin":
                    print(value.get("title", ""), file=sys.stderr)
                continue
            if reply.get("id") != request_id:
                continue
            if "error" in reply:
                error = reply["error"]
                reason = (error.get("data") or {}).get("reason", error["code"])
                raise RuntimeError("%s failed: %s (%s)" % (method, error["message"], reason))
            return reply["result"]

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def close(self):
        self.request("shutdown")
        self.notify("exit")
        self.proc.stdin.close()
        return self.proc.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heapleakd", default=os.environ.get("HEAPLEAKD") or shutil.which("heapleakd"))
    parser.add_argument("dumps", nargs="*", default=[os.path.join(FIXTURES, "heap%d.jsonl.gz" % k) for k in (1, 2, 3)])
    args = parser.parse_args()
    if not args.heapleakd:
        sys.exit("heapleakd not found: pass --heapleakd or set HEAPLEAKD")
    if len(args.dumps) != 3:
        sys.exit("give three dumps: A B C")

    daemon = Daemon(args.heapleakd)
    daemon.request("initialize", {"processId": os.getpid(), "clientInfo": {"name": "drive_heapleakd.py"}})
    daemon.notify("initialized", {})
    heaps = []
    for k, path in enumerate(args.dumps):
        loaded = daemon.request("loadHeap", {"path": os.path.abspath(path), "workDoneToken": "load-%d" % k})
        heaps.append(loaded["heap"])
        print("loaded %s: %d objects from %s" % (loaded["heap"], loaded["objects"], loaded["path"]))

    explain = daemon.request("explain", {"baseline": heaps[0], "target": heaps[1], "later": heaps[2], "limit": 5})
    files = explain.get("files", {})
    print("%d leak(s) new in %s since %s, still alive in %s" % (
        explain["leakCount"], files.get("target"), files.get("baseline"), files.get("later")))
    for rank, leak in enumerate(explain["leaks"], 1):
        holder = leak.get("holder") or {}
        print("%d. %s: %d objects, retaining %d bytes" % (rank, leak["key"], leak["count"], leak["retained"]))
        if holder:
            print("   holder: %s %s" % (holder["address"], holder.get("class") or holder["type"]))
        print("   path:   %s" % " -> ".join(leak["pathNames"]))
        for held in leak["objects"][:3]:
            sites = ", ".join(site["site"] for site in held.get("sites", [])[:2])
            print("   %d x %s%s" % (held["count"], held["name"], " at " + sites if sites else ""))
    for warning in explain.get("warnings", []):
        print("warning: %s" % warning, file=sys.stderr)
    if not explain["leaks"]:
        print("no leaks")
        return daemon.close()
    # Digging: the nearest common retainer of a few of the first row's objects.
    samples = explain["leaks"][0]["samples"][:5]
    root = daemon.request("root", {"heap": heaps[1], "addresses": samples})
    retainer = root.get("retainerObject")
    if retainer is None:
        print("no common retainer for %s" % " ".join(samples))
    else:
        print("retainer of %d samples: %s %s (%s), %d hop(s) above them" % (
            root["samplesReached"], retainer["address"], retainer["class"], retainer["type"], root["distance"]))
    code = daemon.close()
    print("heapleakd exited with %d" % code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
