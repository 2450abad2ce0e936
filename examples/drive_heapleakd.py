#!/usr/bin/env python3
"""Drive heapleakd over stdio with nothing but the Python standard library.

    python3 examples/drive_heapleakd.py [--heapleakd PATH] [A B C]

Spawns `heapleakd --stdio`, speaks JSON-RPC 2.0 in LSP Content-Length frames,
loads three dumps (default: the rbheap fixtures), runs `stats`, asks `root`
about a few of the leaked objects and prints the retainer that holds them.
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

    stats = daemon.request("stats", {"baseline": heaps[0], "target": heaps[1], "later": heaps[2], "limit": 5})
    for group in stats["groups"]:
        print("  %-30s %8d objects %10d bytes" % (group["key"], group["count"], group["memsize"]))
    if not stats["groups"]:
        print("no leak candidates")
        return daemon.close()

    samples = stats["groups"][0]["samples"][:5]
    root = daemon.request("root", {"heap": heaps[1], "addresses": samples})
    retainer = root.get("retainerObject")
    if retainer is None:
        print("no common retainer for %s" % " ".join(samples))
    else:
        print("retainer: %s %s (%s), %d hop(s) above %d of %d samples" % (
            retainer["address"], retainer["class"], retainer["type"], root["distance"],
            root["samplesReached"], len(root["samples"])))
        if "rootPath" in root:
            chain = " -> ".join(o["address"] + " " + o.get("key", o["class"]) for o in root["rootPath"]["objects"])
            print("held from root %s: %s" % (root["rootPath"]["root"], chain))
    code = daemon.close()
    print("heapleakd exited with %d" % code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
