#!/usr/bin/env python3
# End-to-end hardening tests against the real heapleakd (and the one-shot
# heapleak CLI for bad files): bad dump files, bad wire input, faults
# (disconnects, cancellation, SIGTERM, memory budget), load (16 clients), and
# access (TCP token). Each test checks the answer is a clear error or a correct
# result AND that the daemon still serves afterwards. One ctest entry per test:
#   hardening_test.py --daemon D --cli C --fixtures F --gen G --work W TEST
# Exit 0 pass, 1 fail, 77 skip.
import argparse
import gzip
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hl import (SLOW, WAIT, Daemon, Peer, Skip, TestFailure, check, error_of, expect_error, frame,  # noqa: E402
                gen_dumps, process_running, short_temp_dir)

DOMAIN = -32803
# The exit code of each data.reason in both CLIs (docs/exit-codes.md): the
# one-shot CLI on a file the daemon refused must exit with the same failure's code.
EXIT_OF_REASON = {"fileNotFound": 3, "unknownAddress": 4, "corruptInput": 7, "overBudget": 9,
                  "invalidArgument": 10, "notReadable": 14, "notAHeapDump": 15}
TESTS = {}


def test(fn):
    TESTS[fn.__name__] = fn
    return fn


class Ctx:
    pass


# ---------------------------------------------------------------- bad files
def some_lines(ctx, n=2000):
    """The first n lines of a real (Ruby 2.x) fixture dump."""
    with gzip.open(os.path.join(ctx.fixtures, "rbheap-3dump", "heap1.jsonl.gz"), "rb") as f:
        return [next(f) for _ in range(n)]


def write(ctx, name, data):
    path = os.path.join(ctx.work, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def load(peer, path, **extra):
    params = {"path": path}
    params.update(extra)
    return peer.call("loadHeap", params, timeout=WAIT * SLOW * 3)


def cli_on(ctx, path, ok_codes=(0, 1)):
    """The one-shot CLI on the same file: a clean exit code, never a signal or a hang."""
    try:
        r = subprocess.run([ctx.cli, "info", path, "--json"], capture_output=True, timeout=WAIT * SLOW * 3)
    except subprocess.TimeoutExpired:
        raise TestFailure(f"heapleak info {path} hung")
    check(r.returncode >= 0, f"heapleak info {path} died of signal {-r.returncode}: {r.stderr[-2000:]!r}")
    check(r.returncode in ok_codes, f"heapleak info {path}: exit {r.returncode} not in {ok_codes}: {r.stderr[-500:]!r}")
    if r.returncode != 0:
        check(r.stderr.strip(), f"heapleak info {path}: exit {r.returncode} without a message")
    return r


def bad_file(ctx, path, reasons=None, may_load=False, on_result=None):
    """loadHeap `path` over stdio: an error with a reason in `reasons`, or (if
    may_load) a loaded heap; then listHeaps must answer. Same file via the CLI:
    the code of the daemon's reason (EXIT_OF_REASON), or 0/1 when it loaded."""
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        r = load(p, path)
        d.check_alive(f"after loadHeap {path}")
        if error_of(r) is not None and reasons is not None:
            expect_error(r, DOMAIN, reasons, f"loadHeap {os.path.basename(path)}")
        else:
            check(may_load and "result" in r, f"loadHeap {path}: expected an error with reason {reasons}, got {str(r)[:400]}")
            if on_result:
                on_result(p, r["result"])
        heaps = p.list_heaps()
        check(len(heaps) == (1 if "result" in r else 0), f"listHeaps after a {'good' if 'result' in r else 'failed'} load: {heaps}")
        p.call("shutdown")
        p.notify("exit")
        check(d.wait() == 0, "exit after shutdown should be 0")
    error = error_of(r)
    reason = ((error or {}).get("data") or {}).get("reason")
    cli_on(ctx, path, (EXIT_OF_REASON[reason],) if reason in EXIT_OF_REASON else (0, 1))
    return r


@test
def file_missing(ctx):
    bad_file(ctx, os.path.join(ctx.work, "no-such-file.json"), "fileNotFound")


@test
def file_directory(ctx):
    bad_file(ctx, ctx.work, "notReadable")


@test
def file_no_permission(ctx):
    path = write(ctx, "secret.json", b"".join(some_lines(ctx, 50)))
    os.chmod(path, 0)
    if os.geteuid() != 0:
        bad_file(ctx, path, "notReadable")
        return
    # Root reads anything: run the daemon as nobody instead (the work dir is
    # created 0700 by mkdtemp, so nobody cannot even reach the file).
    try:
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "cat", path],
                           capture_output=True, timeout=10)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        raise Skip("running as root and setpriv is missing: root can read a mode-000 file")
    check(r.returncode != 0, "nobody could read a mode-000 file")
    argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ctx.daemon, "--stdio"]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        peer = Peer(proc.stdout.fileno(), proc.stdin.fileno(), on_dead=lambda: proc.poll() is not None)
        peer.initialize()
        expect_error(load(peer, path), DOMAIN, "notReadable", "loadHeap of an unreadable file")
        peer.list_heaps()
    finally:
        proc.kill()
        proc.wait()


@test
def file_empty(ctx):
    bad_file(ctx, write(ctx, "empty.json", b""), "notAHeapDump")


@test
def file_not_json(ctx):
    text = b"".join(b"this is line %d of a README, not a heap dump\n" % i for i in range(1000))
    bad_file(ctx, write(ctx, "readme.json", text), "notAHeapDump")


@test
def file_binary(ctx):
    bad_file(ctx, write(ctx, "random.bin", random.Random(1).randbytes(1 << 20)), "notAHeapDump")
    bad_file(ctx, write(ctx, "elf.json", open(ctx.daemon, "rb").read()[: 4 << 20]), "notAHeapDump")


@test
def gzip_truncated(ctx):
    # Changed on purpose (diagnosis item 5): a cut gzip loads what it holds,
    # with a loud `truncated` warning, like a cut plain dump.
    gz = gzip.compress(b"".join(some_lines(ctx, 17000)))

    def flagged(p, result):
        check(result.get("truncated") is True, f"a cut gzip must be flagged truncated: {result}")
        check(any(w.startswith("truncated: ") for w in result.get("warnings", [])), f"no truncated warning: {result}")
        check(0 < result.get("objects", 0) < 17000, f"a cut gzip holds part of the objects: {result}")
    bad_file(ctx, write(ctx, "cut.json.gz", gz[: len(gz) // 2]), None, may_load=True, on_result=flagged)
    bad_file(ctx, write(ctx, "header-only.json.gz", gz[:12]), "corruptInput")


@test
def gzip_bad_crc(ctx):
    gz = bytearray(gzip.compress(b"".join(some_lines(ctx, 3000))))
    gz[-6] ^= 0xFF  # CRC32 in the trailer
    bad_file(ctx, write(ctx, "crc.json.gz", bytes(gz)), "corruptInput")
    gz = bytearray(gzip.compress(b"".join(some_lines(ctx, 3000))))
    gz[len(gz) // 2] ^= 0x55  # a flipped byte mid-stream
    bad_file(ctx, write(ctx, "flip.json.gz", bytes(gz)), "corruptInput")


@test
def gzip_misnamed_and_multi_member(ctx):
    lines = some_lines(ctx, 3000)
    one = gzip.compress(b"".join(lines[:1500])) + gzip.compress(b"".join(lines[1500:]))

    def full(p, result):
        check(result.get("objects", 0) > 2500, f"two gzip members should give both halves: {result}")
    bad_file(ctx, write(ctx, "two-members.heap", one), None, may_load=True, on_result=full)


@test
def file_cut_mid_line(ctx):
    lines = some_lines(ctx, 3000)
    data = b"".join(lines)
    data = data[: len(data) - len(lines[-1]) // 2]

    def ok(p, result):
        check(result.get("objects", 0) >= 2900, f"a dump cut mid-line keeps the whole lines: {result}")
        check(result.get("brokenLines", 0) >= 1, f"the cut line should be counted broken: {result}")
    bad_file(ctx, write(ctx, "cut.json", data), None, may_load=True, on_result=ok)


@test
def file_nul_and_invalid_utf8(ctx):
    lines = some_lines(ctx, 3000)
    bad = [b'{"address":"0x7f0000000010", "type":"OBJECT", "method":"na\x00me\x00", "file":"a.rb", "line":3}\n',
           b'{"address":"0x7f0000000020", "type":"STRING", "value":"\xff\xfe\xc3\x28", "memsize":40}\n',
           b'{"address":"0x7f0000000030", "type":"OBJECT", "method":"\xe2\x82", "class":"0x1\x00"}\n',
           b"\x00" * 300 + b"\n", b"\xc0\xaf\xed\xa0\x80\n"]
    mixed = lines[:1000] + bad + lines[1000:]

    def ok(p, result):
        check(result.get("objects", 0) >= 2900, f"good lines around the bad ones must load: {result}")
        check(result.get("brokenLines", 0) >= 3, f"NUL/invalid UTF-8 lines should count broken: {result}")
    bad_file(ctx, write(ctx, "nul.json", b"".join(mixed)), None, may_load=True, on_result=ok)


@test
def file_100mb_line(ctx):
    lines = some_lines(ctx, 200)
    n = 100 * 1000 * 1000 // 18
    refs = b", ".join([b'"0x7f00000a0000"'] * n)
    huge = b'{"address":"0x7f0000000100", "type":"ARRAY", "class":"0x7f0000000200", "length":%d, "references":[%s]}\n' % (n, refs)
    path = write(ctx, "hugeline.json", b"".join(lines[:100]) + huge + b"".join(lines[100:]))
    del refs, huge

    def ok(p, result):
        check(result.get("objects", 0) >= 190, f"a 100 MB line must not lose the others: {result}")
        r = p.call("references", {"heap": result["heap"], "address": "0x7f0000000100", "limit": 3})
        check("result" in r or error_of(r)["code"] == DOMAIN, f"references of the huge array: {str(r)[:300]}")
    bad_file(ctx, path, ["corruptInput", "overBudget"], may_load=True, on_result=ok)
    os.unlink(path)
    # And 100 MB of one garbage line among good ones.
    path = write(ctx, "hugegarbage.json", b"".join(lines[:100]) + b"x" * (100 << 20) + b"\n" + b"".join(lines[100:]))
    bad_file(ctx, path, ["corruptInput"], may_load=True)
    os.unlink(path)


@test
def file_deeply_nested(ctx):
    lines = some_lines(ctx, 500)
    deep = [b"[" * 200000 + b"]" * 200000 + b"\n",
            b'{"address":"0x7f0000000040", "type":"HASH", "flags":' + b'{"a":' * 100000 + b"1" + b"}" * 100000 + b"}\n",
            b'{"address":"0x7f0000000050", "type":"ARRAY", "references":' + b"[" * 50000 + b"]" * 50000 + b"}\n",
            b"{" * 300000 + b"\n"]

    def ok(p, result):
        check(result.get("objects", 0) >= 450, f"good lines around deep ones must load: {result}")
    bad_file(ctx, write(ctx, "deep.json", b"".join(lines[:250] + deep + lines[250:])), ["corruptInput"],
             may_load=True, on_result=ok)


@test
def file_wrong_field_types(ctx):
    lines = some_lines(ctx, 500)
    bad = [b'{"address":123456, "type":"OBJECT"}\n', b'{"address":"0x7f0000000060", "type":7}\n',
           b'{"address":"0x7f0000000070", "type":"ARRAY", "references":"0x7f0000000060"}\n',
           b'{"address":"0x7f0000000080", "type":"ARRAY", "references":[1, null, {"x":1}, ["0x1"], "0x7f0000000060"]}\n',
           b'{"address":"0x7f0000000090", "type":"STRING", "memsize":"forty", "class":{"a":1}, "line":"x", "generation":-1}\n',
           b'{"address":"0x7f00000000a0", "type":"CLASS", "name":42, "memsize":1e400}\n',
           b'{"address":["0x1"], "type":"ROOT"}\n', b'{"type":"ROOT", "root":7, "references":{"0x1":1}}\n',
           b'{"address":"0x7f00000000b0", "type":"OBJECT", "flags":"old", "file":3, "method":[]}\n',
           b'{"address":"0x7f00000000c0", "type":"DATA", "struct":null, "memsize":18446744073709551616}\n']

    def ok(p, result):
        check(result.get("objects", 0) >= 450, f"wrong-typed fields must not lose the good lines: {result}")
        for addr in ("0x7f0000000080", "0x7f0000000090"):
            r = p.call("object", {"heap": result["heap"], "address": addr})
            check("result" in r or error_of(r)["code"] in (DOMAIN, -32602), f"object {addr}: {str(r)[:300]}")
    bad_file(ctx, write(ctx, "types.json", b"".join(lines[:250] + bad + lines[250:])), ["corruptInput"],
             may_load=True, on_result=ok)


@test
def file_duplicate_addresses(ctx):
    lines = some_lines(ctx, 500)
    dup = [b'{"address":"0x7f00000000d0", "type":"STRING", "class":"0x7f00000000e0", "value":"one", "memsize":40}\n',
           b'{"address":"0x7f00000000d0", "type":"HASH", "class":"0x7f00000000e0", "references":["0x7f00000000d0"]}\n',
           b'{"address":"0x7f00000000d0", "type":"ARRAY", "references":["0x7f00000000d0", "0x7f00000000d0"]}\n']
    objs = [l for l in lines if b'"address"' in l]
    data = b"".join(lines[:250] + dup + lines[250:] + objs[:50])  # 50 real objects twice, too

    def ok(p, result):
        h = result["heap"]
        for m, params in (("object", {"address": "0x7f00000000d0"}), ("referrers", {"address": "0x7f00000000d0"}),
                          ("pathToRoot", {"address": "0x7f00000000d0"}),
                          ("root", {"addresses": ["0x7f00000000d0"]})):
            params["heap"] = h
            r = p.call(m, params)
            check("result" in r or error_of(r)["code"] == DOMAIN, f"{m} on a duplicated address: {str(r)[:300]}")
    bad_file(ctx, write(ctx, "dup.json", data), ["corruptInput"], may_load=True, on_result=ok)


@test
def file_missing_references(ctx):
    data = b"".join([
        b'{"type":"ROOT", "root":"vm", "references":["0x7f0000001000", "0x7f00deadbeef"]}\n',
        b'{"address":"0x7f0000001000", "type":"ARRAY", "class":"0x7f0000009999", "references":["0x7f0000002000", "0x7f00deadbee0"]}\n',
        b'{"address":"0x7f0000002000", "type":"STRING", "class":"0x7f0000009998", "value":"x", "references":["0x7f00deadbee1"]}\n',
        b'{"address":"0x7f0000003000", "type":"OBJECT", "class":"0x7f0000001000", "references":["0x7f0000003000"]}\n'])

    def ok(p, result):
        h = result["heap"]
        r = p.call("pathToRoot", {"heap": h, "address": "0x7f0000002000"})
        check("result" in r, f"pathToRoot through present objects: {str(r)[:300]}")
        r = p.call("pathToRoot", {"heap": h, "address": "0x7f0000003000"})
        check("result" in r or error_of(r)["code"] == DOMAIN, f"pathToRoot of an unreachable object: {str(r)[:300]}")
        expect_error(p.call("object", {"heap": h, "address": "0x7f00deadbeef"}), DOMAIN, "unknownAddress",
                     "object of a dangling reference")
        for m in ("references", "referrers"):
            r = p.call(m, {"heap": h, "address": "0x7f0000001000"})
            check("result" in r, f"{m} with dangling targets: {str(r)[:300]}")
        r = p.call("root", {"heap": h, "addresses": ["0x7f0000002000", "0x7f00deadbee0"]})
        check("result" in r or error_of(r)["code"] == DOMAIN, f"root with a dangling sample: {str(r)[:300]}")
    bad_file(ctx, write(ctx, "dangling.json", data), None, may_load=True, on_result=ok)


@test
def file_non_hex_address(ctx):
    lines = some_lines(ctx, 500)
    bad = [b'{"address":"0xZZZZ", "type":"OBJECT"}\n', b'{"address":"hello", "type":"OBJECT"}\n',
           b'{"address":"0x", "type":"OBJECT"}\n', b'{"address":"", "type":"OBJECT"}\n',
           b'{"address":"0x1ffffffffffffffffffff", "type":"OBJECT"}\n', b'{"address":"-0x10", "type":"OBJECT"}\n',
           b'{"address":"0x7f0000000f00", "type":"ARRAY", "references":["0xZZ", "nope", "0x", "0x7f0000000f00"]}\n']

    def ok(p, result):
        check(result.get("objects", 0) >= 450, f"non-hex addresses must not lose the good lines: {result}")
        expect_error(p.call("object", {"heap": result["heap"], "address": "0xZZZZ"}), -32602, None,
                     "object with a non-hex address")
    bad_file(ctx, write(ctx, "nonhex.json", b"".join(lines[:250] + bad + lines[250:])), ["corruptInput"],
             may_load=True, on_result=ok)


# ---------------------------------------------------------------- queries
def load_abc(peer, dumps, names=("A", "B", "C")):
    ids = []
    for n in names:
        r = peer.call("loadHeap", {"path": os.path.join(dumps, f"{n}.json")}, timeout=WAIT * SLOW * 3)
        check("result" in r, f"loadHeap {n}: {str(r)[:300]}")
        ids.append(r["result"]["heap"])
    return ids


def leaked(dumps, n=5):
    with open(os.path.join(dumps, "truth.json")) as f:
        return [o["address"] for o in json.load(f)["leak"]["objects"][:n]]


@test
def samples_zero_and_10000(ctx):
    dumps = gen_dumps(ctx)
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        a, b, c = load_abc(p, dumps)
        r = p.call("stats", {"baseline": a, "target": b, "later": c, "samples": 0})
        check("result" in r or error_of(r)["code"] == -32602, f"stats samples 0: {str(r)[:300]}")
        if "result" in r:
            for g in r["result"]["groups"]:
                check(len(g.get("samples", [])) == 0, f"samples 0 gave samples: {str(g)[:200]}")
        t = time.monotonic()
        r = p.call("stats", {"baseline": a, "target": b, "later": c, "samples": 10000}, timeout=WAIT * SLOW)
        check("result" in r, f"stats samples 10000: {str(r)[:300]}")
        total = sum(len(g.get("samples", [])) for g in r["result"]["groups"])
        check(all(len(g.get("samples", [])) <= 10000 for g in r["result"]["groups"]), "more than 10000 samples in a group")
        check(total >= 2700, f"samples 10000 should list every leaked object (2700), got {total}")
        r = p.call("root", {"heap": c, "addresses": leaked(dumps, 2700), "minSamples": 0}, timeout=WAIT * SLOW)
        check("result" in r, f"root with 2700 samples: {str(r)[:300]}")
        print(f"stats with samples 10000: {total} samples in {time.monotonic() - t:.1f} s")
        p.list_heaps()


@test
def unloaded_heap_id(ctx):
    dumps = gen_dumps(ctx)
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        a, b = load_abc(p, dumps, ("A", "B"))
        r = p.call("unloadHeap", {"heap": a})
        check("result" in r, f"unloadHeap: {r}")
        addr = leaked(dumps, 1)[0]
        for m, params in (("stats", {"baseline": a, "target": b}), ("root", {"heap": a, "addresses": [addr]}),
                          ("object", {"heap": a, "address": addr}), ("pathToRoot", {"heap": a, "address": addr}),
                          ("referrers", {"heap": a, "address": addr}), ("unloadHeap", {"heap": a}),
                          ("topRetainers", {"heap": a}), ("duplicateStrings", {"heap": a})):
            r = p.call(m, params)
            if m in ("topRetainers", "duplicateStrings") and error_of(r) and error_of(r)["code"] in (-32601, -32602):
                continue  # method not there (yet) or other params
            expect_error(r, DOMAIN, "unknownHeap", f"{m} on an unloaded heap")
        heaps = p.list_heaps()
        check([h["heap"] for h in heaps] == [b], f"only B should remain: {heaps}")


# ---------------------------------------------------------------- the wire
def wire_session(ctx):
    d = Daemon(ctx)
    d.peer.initialize()
    return d


@test
def wire_invalid_json(ctx):
    with wire_session(ctx) as d:
        p = d.peer
        for body in (b"{", b"{\"jsonrpc\":\"2.0\",", b"\xff\xfe", b"nul\x00l", b'{"a":1}}', b"[" * 100000):
            p.send_raw(frame(body))
            r = p.response()
            check(r.get("id") is None and error_of(r) and error_of(r)["code"] in (-32700, -32600),
                  f"not JSON {body[:20]!r}: {str(r)[:200]}")
        p.send_raw(b'{"jsonrpc":"2.0", "id":1, "method":\n')  # NDJSON, broken
        r = p.response()
        check(error_of(r) and error_of(r)["code"] == -32700, f"broken NDJSON line: {r}")
        p.list_heaps()


@test
def wire_bad_envelope(ctx):
    with wire_session(ctx) as d:
        p = d.peer
        cases = [({"jsonrpc": "1.0", "id": 1, "method": "listHeaps"}, -32600),
                 ({"id": 2, "method": "listHeaps"}, -32600),
                 ({"jsonrpc": 2.0, "id": 3, "method": "listHeaps"}, -32600),
                 ({"jsonrpc": "2.0", "id": 4, "method": 7}, -32600),
                 ({"jsonrpc": "2.0", "id": 5}, -32600),
                 ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "listHeaps"}, -32600),
                 ({"jsonrpc": "2.0", "id": [1], "method": "listHeaps"}, -32600),
                 ({"jsonrpc": "2.0", "id": True, "method": "listHeaps"}, -32600),
                 ({"jsonrpc": "2.0", "id": 1.5, "method": "listHeaps"}, None),
                 ({"jsonrpc": "2.0", "id": 10 ** 30, "method": "listHeaps"}, None),
                 ({"jsonrpc": "2.0", "id": "", "method": "listHeaps"}, None),
                 ({"jsonrpc": "2.0", "id": "x" * 100000, "method": "listHeaps"}, None),
                 ({"jsonrpc": "2.0", "id": -1, "method": "noSuchMethod"}, -32601),
                 ([], -32600), ([1, 2], "batch"), ("a string", -32600), (42, -32600), (None, -32600)]
        for msg, code in cases:
            p.send_raw(frame(json.dumps(msg).encode()))
            r = p.response()
            if code == "batch":
                check(isinstance(r, list) and len(r) == 2 and all(x["error"]["code"] == -32600 for x in r),
                      f"[1,2] should give a batch of two -32600: {r}")
                continue
            check(isinstance(r, dict), f"{str(msg)[:60]}: expected one response, got {str(r)[:200]}")
            if code is None:
                check("result" in r or error_of(r)["code"] == -32600, f"{str(msg)[:60]}: {str(r)[:200]}")
            else:
                expect_error(r, code, None, f"envelope {str(msg)[:60]}")
            if isinstance(msg, dict) and "id" in msg and code in (-32601, None) and "result" in r:
                same = r["id"] == msg["id"] or (isinstance(msg["id"], int) and isinstance(r["id"], (int, float))
                                                and float(r["id"]) == float(msg["id"]))  # 10^30 comes back as 1e30
                check(same, f"id not echoed: sent {str(msg['id'])[:40]}, got {str(r['id'])[:40]}")
        p.list_heaps()


@test
def wire_non_finite_id(ctx):
    # Every reply must be strict JSON (RFC 8259): vscode-jsonrpc's JSON.parse
    # rejects Infinity/NaN. An id like 1e999 must be refused, not echoed.
    def strict(text):
        return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(TestFailure(f"reply has {c}: {text[:200]}")))
    with wire_session(ctx) as d:
        p = d.peer
        for raw in (b'{"jsonrpc":"2.0","id":1e999,"method":"listHeaps"}', b'{"jsonrpc":"2.0","id":-1e999,"method":"nope"}'):
            p.send_raw(raw + b"\n")
            deadline = time.monotonic() + WAIT
            while b"\n" not in p.buf.lstrip(b"\r\n ") and p._fill(deadline):
                pass
            line, _, p.buf = p.buf.lstrip(b"\r\n ").partition(b"\n")
            r = strict(line.decode())
            check(error_of(r) and error_of(r)["code"] == -32600 and r["id"] is None,
                  f"id {raw[22:28]!r}: expected -32600 with id null, got {str(r)[:200]}")
        p.list_heaps()


@test
def wire_long_header_no_newline(ctx):
    # "Content-Length: " and then 70 KB without a newline (over the 64 KiB header
    # limit): one error, then service resumes; no endless loop of error frames.
    with wire_session(ctx) as d:
        p = d.peer
        p.send_raw(b"Content-Length: " + b"x" * 70000)
        time.sleep(1)
        p.send_raw(b"\r\n\r\n")
        time.sleep(1)
        errors = 0
        while True:
            try:
                m = p.read_message(0.5)
            except TestFailure:
                break
            errors += 1
            check(errors < 20, "the daemon keeps sending error frames for one long header (endless loop)")
        check(errors >= 1, "a 70 KB header line should get an error")
        p.list_heaps(timeout=5)


@test
def wire_bad_params(ctx):
    with wire_session(ctx) as d:
        p = d.peer
        # Params that are not an object or array are an invalid request (-32600).
        for bad in ("x", 7, True):
            expect_error(p.call("loadHeap", bad), -32600, None, f"loadHeap params {bad!r}")
        cases = [("loadHeap", None, "params.path"), ("loadHeap", [], "params"),
                 ("loadHeap", {"path": 1}, "params.path"), ("loadHeap", {"path": None}, "params.path"),
                 ("loadHeap", {"path": "/x", "name": ["a"]}, "params.name"),
                 ("stats", {"baseline": "h1"}, "params.target"),
                 ("stats", {"baseline": "h1", "target": "h2", "samples": -1}, "params.samples"),
                 ("stats", {"baseline": "h1", "target": "h2", "samples": "10"}, "params.samples"),
                 ("stats", {"baseline": "h1", "target": "h2", "limit": 1e30}, "params.limit"),
                 ("stats", {"baseline": "h1", "target": "h2", "samples": 2.5}, "params.samples"),
                 ("root", {"heap": "h1", "addresses": "0x1"}, "params.addresses"),
                 ("root", {"heap": "h1", "addresses": ["0x1", 2]}, "params.addresses[1]"),
                 ("root", {"heap": "h1", "addresses": []}, None),
                 ("object", {"heap": {"id": "h1"}, "address": "0x1"}, "params.heap"),
                 ("referrers", {"heap": "h1", "address": "0x1", "offset": -5}, "params.offset"),
                 ("unloadHeap", {"heap": True}, "params.heap")]
        for method, params, field in cases:
            msg = {"jsonrpc": "2.0", "id": 77, "method": method}
            if params is not None:
                msg["params"] = params
            p.send(msg)
            r = p.response(77)
            if field is None:
                check(error_of(r) and error_of(r)["code"] in (-32602, DOMAIN), f"{method} {params}: {str(r)[:200]}")
                continue
            err = expect_error(r, -32602, None, f"{method} {str(params)[:60]}")
            check(field in err["message"], f"{method} {str(params)[:60]}: message should name {field}: {err['message']}")
        p.list_heaps()


@test
def wire_huge_content_length(ctx):
    with wire_session(ctx) as d:
        p = d.peer
        p.send_raw(b"Content-Length: 1000000000000000000\r\n\r\n")
        r = p.response()
        expect_error(r, -32600, None, "Content-Length 10^18")
        check(r.get("id") is None, f"id should be null: {r}")
        p.send_raw(b"some bytes of the lie...\r\n")
        p.send_raw(b"Content-Length: 99999999999999999999999999999\r\n\r\n")
        p.response()
        p.list_heaps()  # resynchronised on the next header
        p.send_raw(b"Content-Length: 300000000\r\n\r\n" + b" " * 1000)  # believable but over 256 MiB: skipped
        r = p.response()
        expect_error(r, -32600, None, "Content-Length 300 MB")
    # The skip of an honest oversize body: feed 300 MB and expect service after.
    with wire_session(ctx) as d:
        p = d.peer
        n = 300 * 1000 * 1000
        p.send_raw(b"Content-Length: %d\r\n\r\n" % n)
        chunk = b" " * (1 << 20)
        sent = 0
        while sent < n:
            p.send_raw(chunk[: min(len(chunk), n - sent)])
            sent += min(len(chunk), n - sent)
        expect_error(p.response(), -32600, None, "300 MB body")
        p.list_heaps()
        check(rss_mb(d.proc.pid) < 200, f"skipping a 300 MB body should not buffer it: RSS {rss_mb(d.proc.pid)} MB")


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return 0


@test
def wire_frame_cut_in_half(ctx):
    # stdio: half a frame then EOF: the daemon exits (1: no shutdown), no crash.
    d = Daemon(ctx)
    with d:
        d.peer.initialize()
        f = frame({"jsonrpc": "2.0", "id": 9, "method": "listHeaps"})
        d.peer.send_raw(f[: len(f) // 2])
        d.proc.stdin.close()
        code = d.wait()
        check(code == 1, f"EOF inside a frame without shutdown: exit {code}, expected 1")
        check("Sanitizer" not in d.stderr(), d.stderr()[-2000:])
    # socket: half a frame, close; the next client is served.
    with Daemon(ctx, "unix") as d:
        s = d.raw_socket()
        s.sendall(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}))
        f = frame({"jsonrpc": "2.0", "id": 9, "method": "listHeaps"})
        s.sendall(f[: len(f) // 2])
        time.sleep(0.2)
        s.close()
        p = d.connect()
        p.initialize()
        p.list_heaps()
        d.check_alive()


@test
def wire_slow_client(ctx):
    # One byte every 30 ms for a whole request (the daemon sees a frame arrive
    # in ~170 pieces, each its own read), while another client is served promptly.
    with Daemon(ctx, "unix") as d:
        fast = d.connect()
        fast.initialize()
        slow = d.raw_socket()
        data = frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}) + \
            frame({"jsonrpc": "2.0", "id": 1, "method": "listHeaps"})
        worst = 0.0
        for i, byte in enumerate(data):
            slow.sendall(bytes([byte]))
            if i % 10 == 0:
                t = time.monotonic()
                fast.list_heaps(timeout=5 * SLOW)
                worst = max(worst, time.monotonic() - t)
            else:
                time.sleep(0.03)
            if time.monotonic() > START + 90:
                raise TestFailure("slow client test exceeded its time bound")
        slow.settimeout(10 * SLOW)
        buf = b""
        while buf.count(b"Content-Length") < 2 or not buf.rstrip().endswith(b"}"):
            chunk = slow.recv(65536)
            check(chunk, "the slow client's connection closed before its replies")
            buf += chunk
        check(b'"heaps"' in buf, f"the slow client's listHeaps answer: {buf[-300:]!r}")
        check(worst < 2 * SLOW, f"the fast client waited {worst:.2f} s while another client trickled bytes")


@test
def wire_client_never_reads(ctx):
    dumps = gen_dumps(ctx)
    with Daemon(ctx, "unix") as d:
        good = d.connect()
        good.initialize()
        a, b, c = load_abc(good, dumps)
        hog = d.raw_socket()
        hog.sendall(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}))
        big = frame({"jsonrpc": "2.0", "id": 1, "method": "stats",
                     "params": {"baseline": a, "target": b, "later": c, "samples": 10000}})
        # Measure one reply's size through the good client, then send enough for > 256 MiB.
        r = good.call("stats", {"baseline": a, "target": b, "later": c, "samples": 10000})
        reply_bytes = len(json.dumps(r))
        n = (300 << 20) // max(reply_bytes, 1) + 10  # enough replies for > 256 MiB unread
        hog.setblocking(False)
        sent, dropped, pending = 0, False, b""
        deadline = time.monotonic() + 60 * SLOW
        worst = 0.0
        while (sent < n or pending) and time.monotonic() < deadline:
            if not pending:
                pending = big * 20
                sent += 20
            try:
                k = hog.send(pending)
                pending = pending[k:]
            except BlockingIOError:
                time.sleep(0.05)  # the daemon stopped reading us: fine, as long as it serves `good`
            except (BrokenPipeError, ConnectionResetError):
                dropped = True
                break
            t = time.monotonic()
            good.list_heaps(timeout=20 * SLOW)
            worst = max(worst, time.monotonic() - t)
            d.check_alive("while a client did not read its replies")
        print(f"sent {sent} of {n} stats requests of ~{reply_bytes} reply bytes each; dropped={dropped}; "
              f"worst listHeaps {worst:.2f} s; daemon RSS {rss_mb(d.proc.pid)} MB")
        check(rss_mb(d.proc.pid) < 1500, f"unread replies made the daemon grow to {rss_mb(d.proc.pid)} MB")
        heaps = good.list_heaps()
        check(len(heaps) == 3, f"heaps lost: {heaps}")
        # Stopping with thousands of queued queries is sigterm_with_queued_queries' job.
        d.proc.kill()


def flood_unread(d, dumps, count, close):
    """A client loads A, B, C, then sends `count` big stats requests and never reads."""
    s = d.raw_socket()
    s.sendall(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}))
    keeper = d.connect()
    keeper.initialize()
    a, b, c = load_abc(keeper, dumps)
    req = frame({"jsonrpc": "2.0", "id": 9, "method": "stats",
                 "params": {"baseline": a, "target": b, "later": c, "samples": 10000}})
    s.setblocking(False)
    buf = req * count
    deadline = time.monotonic() + 10
    while buf and time.monotonic() < deadline:
        try:
            buf = buf[s.send(buf):]
        except BlockingIOError:
            time.sleep(0.05)
    time.sleep(3)
    if close:
        s.close()
        d.sockets.remove(s)
    return s


def stops_promptly(d, what, bound=10):
    t = time.monotonic()
    d.proc.send_signal(signal.SIGTERM)
    try:
        code = d.proc.wait(timeout=bound * SLOW)
    except subprocess.TimeoutExpired:
        d.proc.kill()
        raise TestFailure(f"SIGTERM with {what}: heapleakd still running after {bound * SLOW:.0f} s")
    check(code == 0, f"SIGTERM with {what}: exit {code}")
    check(not os.path.exists(d.socket_path), "socket left behind")
    print(f"SIGTERM with {what}: exit after {time.monotonic() - t:.2f} s")


@test
def sigterm_with_unread_replies(ctx):
    # A client with replies pending that it never reads (socket kept open):
    # the daemon must still stop on SIGTERM (its writer must not block forever).
    dumps = gen_dumps(ctx)
    with Daemon(ctx, "unix") as d:
        flood_unread(d, dumps, 300, close=False)
        stops_promptly(d, "a client not reading 300 replies")


@test
def sigterm_with_queued_queries(ctx):
    # A client queues thousands of queries and goes away: SIGTERM must not wait
    # for all that abandoned work to be computed.
    dumps = gen_dumps(ctx)
    with Daemon(ctx, "unix") as d:
        flood_unread(d, dumps, 3000, close=True)
        stops_promptly(d, "3000 abandoned stats queries queued", bound=5)


@test
def nonreading_clients_release_slots(ctx):
    # Clients that half-close (send EOF) with replies unread must not hold one
    # of the 64 connection slots forever: after 70 of them a new client is served.
    dumps = gen_dumps(ctx)
    with Daemon(ctx, "unix") as d:
        keeper = d.connect()
        keeper.initialize()
        a, b, c = load_abc(keeper, dumps)
        req = frame({"jsonrpc": "2.0", "id": 9, "method": "stats",
                     "params": {"baseline": a, "target": b, "later": c, "samples": 10000}})
        held = []
        for _ in range(70):
            s = d.raw_socket()
            s.sendall(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}) + req * 20)
            s.shutdown(socket.SHUT_WR)
            held.append(s)
        # Ask until served, within the bound the old fixed wait gave (10 s per
        # slowdown unit): the slots must come free, however soon they do.
        deadline = time.monotonic() + 10 * SLOW
        while True:
            p = d.connect()
            try:
                p.result("initialize", {"processId": os.getpid(), "clientInfo": {"name": "late"}}, timeout=2 * SLOW)
                p.list_heaps(timeout=2 * SLOW)
                break
            except (TestFailure, OSError) as e:
                p.close()
                if time.monotonic() > deadline:
                    raise TestFailure(f"after 70 clients that never read, a new client is not served: {e}")
                time.sleep(0.5)
        p.close()
        for s in held:
            s.close()


# ---------------------------------------------------------------- faults
def big_dump(ctx, copies=6):
    """A dump large enough that loading it takes a few seconds: A.json several times."""
    dumps = gen_dumps(ctx)
    path = os.path.join(ctx.shared, f"big-{copies}.json")
    if not os.path.exists(path):
        tmp = path + f".{os.getpid()}"
        with open(tmp, "wb") as out:
            for _ in range(copies):
                with open(os.path.join(dumps, "A.json"), "rb") as f:
                    shutil.copyfileobj(f, out)
        os.replace(tmp, path)
    return path


def wait_progress(peer, token, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for n in peer.notes:
            if n.get("method") == "$/progress" and n["params"].get("token") == token and \
                    n["params"]["value"].get("kind") in ("report", "begin"):
                return
        try:
            m = peer.read_message(0.5)
        except TestFailure:
            continue
        if "id" in m and "method" not in m:
            peer.inbox.append(m)
        else:
            peer.notes.append(m)
    raise TestFailure("no $/progress from the load")


@test
def disconnect_mid_load(ctx):
    path = big_dump(ctx)
    with Daemon(ctx, "unix") as d:
        keeper = d.connect()
        keeper.initialize()
        dumps = gen_dumps(ctx)
        (b,) = load_abc(keeper, dumps, ("B",))
        for _ in range(3):
            p = d.connect()
            p.initialize()
            p.request("loadHeap", {"path": path, "workDoneToken": "t"})
            wait_progress(p, "t")
            p.sock.close()
        # No half heap: eventually only B (the loads were cancelled) or B plus whole heaps.
        time.sleep(1)
        deadline = time.monotonic() + WAIT * SLOW
        while time.monotonic() < deadline:
            heaps = keeper.list_heaps()
            if all(h["objects"] > 0 for h in heaps):
                break
        check(b in [h["heap"] for h in heaps], f"the other client's heap was lost: {heaps}")
        print("after 3 disconnects mid-load:", [(h["heap"], h["objects"]) for h in heaps])
        d.check_alive()


@test
def disconnect_mid_reply(ctx):
    dumps = gen_dumps(ctx)
    with Daemon(ctx, "unix") as d:
        keeper = d.connect()
        keeper.initialize()
        a, b, c = load_abc(keeper, dumps)
        for i in range(5):
            s = d.raw_socket()
            s.sendall(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}) +
                      frame({"jsonrpc": "2.0", "id": 1, "method": "stats",
                             "params": {"baseline": a, "target": b, "later": c, "samples": 10000}}))
            got = b""
            while got.count(b"Content-Length") < 2:
                got += s.recv(4096)
            s.recv(1000 * (i + 1))
            s.close()  # with most of the big reply unread
        keeper.list_heaps()
        d.check_alive()


@test
def disconnect_mid_frame(ctx):
    with Daemon(ctx, "unix") as d:
        keeper = d.connect()
        keeper.initialize()
        for cut in (3, 10, 20, 30, 60):
            s = d.raw_socket()
            s.sendall(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}) +
                      frame({"jsonrpc": "2.0", "id": 1, "method": "listHeaps"})[:cut])
            s.close()
        s = d.raw_socket()
        s.sendall(b"Content-Length: 1000\r\n\r\n{")
        s.shutdown(socket.SHUT_WR)
        s.close()
        keeper.list_heaps()
        d.check_alive()


@test
def cancel_load(ctx):
    # 460 MB: the cancel must come while the load runs, and a lone load now
    # reads a 115 MB dump in ~0.1 s (mapped, in two halves).
    path = big_dump(ctx, copies=24)
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        id = p.request("loadHeap", {"path": path, "workDoneToken": "load"})
        wait_progress(p, "load")
        p.notify("$/cancelRequest", {"id": id})
        r = p.response(id, WAIT * SLOW)
        expect_error(r, -32800, None, "cancelled loadHeap")
        check(p.list_heaps() == [], "a cancelled load left a heap behind")
        # Cancel before it even starts (queued behind another load), and a bogus cancel.
        id1 = p.request("loadHeap", {"path": path})
        id2 = p.request("loadHeap", {"path": path})
        p.notify("$/cancelRequest", {"id": id2})
        p.notify("$/cancelRequest", {"id": "not-in-flight"})
        p.notify("$/cancelRequest", {"id": {"x": 1}})
        p.notify("$/cancelRequest", [])
        p.notify("$/cancelRequest", {"id": id1})
        for i in (id1, id2):
            r = p.response(i, WAIT * SLOW * 3)
            check("result" in r or error_of(r)["code"] == -32800, f"load {i}: {str(r)[:200]}")
        heaps = p.list_heaps()
        check(all(h["objects"] > 0 for h in heaps), f"half-loaded heap: {heaps}")


@test
def cancel_stats_and_root(ctx):
    dumps = gen_dumps(ctx)
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        a, b, c = load_abc(p, dumps)
        outcomes = []
        for method, params in (("stats", {"baseline": a, "target": b, "later": c, "samples": 10000}),
                               ("root", {"heap": c, "addresses": leaked(dumps, 2700)}),
                               ("pathToRoot", {"heap": c, "address": leaked(dumps, 1)[0]})):
            for delay in (0, 0.01, 0.05):
                id = p.request(method, params)
                time.sleep(delay)
                p.notify("$/cancelRequest", {"id": id})
                t = time.monotonic()
                r = p.response(id, WAIT * SLOW)
                after = time.monotonic() - t
                check("result" in r or error_of(r)["code"] == -32800, f"cancelled {method}: {str(r)[:200]}")
                outcomes.append((method, delay, "result" if "result" in r else "cancelled", round(after, 3)))
        # A result is fine when the work was done before the cancel arrived; a
        # result that took long after the cancel means the work never checked it.
        late = [o for o in outcomes if o[2] == "result" and o[3] > 0.25 * SLOW]
        check(not late, f"$/cancelRequest ignored (result arrived long after the cancel): {late}")
        # Exactly once: nothing more arrives for those ids.
        p.list_heaps()
        check(not p.inbox, f"extra replies: {str(p.inbox)[:300]}")
        print("cancel outcomes:", outcomes)


@test
def sigterm_during_load(ctx):
    path = big_dump(ctx)
    with Daemon(ctx, "unix") as d:
        p = d.connect()
        p.initialize()
        p.request("loadHeap", {"path": path, "workDoneToken": "t"})
        wait_progress(p, "t")
        t = time.monotonic()
        d.proc.send_signal(signal.SIGTERM)
        code = d.wait(WAIT * SLOW)
        check(code == 0, f"SIGTERM during a load: exit {code}, expected 0; log: {d.stderr()[-1000:]}")
        check(not os.path.exists(d.socket_path), "the socket file was left behind")
        print(f"SIGTERM to exit: {time.monotonic() - t:.2f} s")
    with Daemon(ctx) as d:
        d.peer.initialize()
        d.peer.request("loadHeap", {"path": path, "workDoneToken": "t"})
        wait_progress(d.peer, "t")
        d.proc.send_signal(signal.SIGTERM)
        code = d.wait(WAIT * SLOW)
        check(code == 0, f"stdio: SIGTERM during a load: exit {code}, expected 0")


def children_of(pid):
    """Pids whose parent is `pid`, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


@test
def fleet_stopped_stops_its_runs(ctx):
    """`heapleak fleet` stopped by SIGTERM stops its explain runs, removes
    its scratch directory and writes no table (exit 143); killed by SIGKILL,
    which it cannot see, its runs die with it all the same."""
    path = big_dump(ctx, copies=24)  # ~2 s to explain three times over
    for how in (signal.SIGTERM, signal.SIGKILL):
        root = tempfile.mkdtemp(dir=ctx.work, prefix=f"fleet-{how.name}-")
        tmp = os.path.join(root, "tmp")
        os.mkdir(tmp)
        for worker in ("w1", "w2", "w3"):
            series = os.path.join(root, "captures", worker)
            os.makedirs(series)
            for k in (1, 2, 3):
                os.symlink(path, os.path.join(series, f"heap-{k}.json"))
        table = os.path.join(root, "fleet.jsonl")
        proc = subprocess.Popen([ctx.cli, "fleet", os.path.join(root, "captures"), "--no-cache", "--jobs", "2",
                                 "-o", table], env=dict(os.environ, TMPDIR=tmp),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + WAIT * SLOW
        runs = []
        while len(runs) < 2 and time.monotonic() < deadline and proc.poll() is None:
            runs = children_of(proc.pid)
            time.sleep(0.02)
        check(len(runs) == 2, f"{how.name}: fleet started {len(runs)} runs, expected 2 (exit {proc.poll()})")
        if how == signal.SIGTERM:
            # Seen: the fleet stops its runs and reaps them before it exits.
            t = time.monotonic()
            proc.send_signal(how)
            code = proc.wait(WAIT * SLOW)
            said = proc.stderr.read().decode(errors="replace")
            left = [pid for pid in runs if process_running(pid)]
            print(f"SIGTERM: fleet and its runs gone in {time.monotonic() - t:.2f} s")
            check(code == 128 + signal.SIGTERM, f"SIGTERM: exit {code}, expected 143; stderr: {said[-500:]}")
            check("stopped by" in said and "2 runs stopped, 1 not started" in said,
                  f"SIGTERM: the fleet did not say what it stopped: {said[-500:]}")
            check(os.listdir(tmp) == [], f"SIGTERM: the scratch directory was left: {os.listdir(tmp)}")
            check(not os.path.exists(table), "SIGTERM: a table was written")
        else:
            # Unseen: the runs are held (SIGSTOP) while the fleet is killed,
            # then let go; each must end at once, not run on to its answer
            # (~1.5 s here): the kernel signalled it when its parent died.
            for pid in runs:
                os.kill(pid, signal.SIGSTOP)
            proc.send_signal(how)
            code = proc.wait(WAIT * SLOW)
            check(code == -signal.SIGKILL, f"SIGKILL: exit {code}")
            t = time.monotonic()
            for pid in runs:
                os.kill(pid, signal.SIGCONT)
            while any(process_running(pid) for pid in runs) and time.monotonic() < t + 5 * SLOW:
                time.sleep(0.01)
            took = time.monotonic() - t
            left = [pid for pid in runs if process_running(pid)]
            print(f"SIGKILL: the runs gone {took:.2f} s after they were let go")
            check(took < 0.25 * SLOW, f"SIGKILL: the runs took {took:.2f} s to end: they ran on")
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        check(not left, f"{how.name}: the runs {left} outlived the fleet")
        shutil.rmtree(root, ignore_errors=True)


def stdio_cut_during_load(ctx, cut, expected_code, what):
    """Times a whole load of a big dump over --stdio, then starts it again
    and calls cut(daemon) once it reports progress: the daemon must exit
    with expected_code in under half a load, i.e. cancel it, not run it out."""
    # A bigger dump when the load is too quick to tell (loads got faster).
    for copies in (24, 72):
        path = big_dump(ctx, copies=copies)
        with Daemon(ctx) as d:
            d.peer.initialize()
            t = time.monotonic()
            check("result" in load(d.peer, path), "the big dump loads")
            whole = time.monotonic() - t
        if whole >= 0.6:
            break
    else:
        raise Skip(f"the load takes only {whole:.2f} s: too fast to tell waiting from cancelling")
    with Daemon(ctx) as d:
        d.peer.initialize()
        d.peer.request("loadHeap", {"path": path, "workDoneToken": "t"})
        wait_progress(d.peer, "t")
        t = time.monotonic()
        cut(d)
        code = d.wait(WAIT * SLOW)
        took = time.monotonic() - t
        check(code == expected_code, f"stdio: {what} during a load: exit {code}, expected {expected_code}")
        check(took < whole / 2, f"stdio: {what} took {took:.2f} s of a {whole:.2f} s load: it ran the load out")
        print(f"stdio {what} to exit: {took:.2f} s (a whole load: {whole:.2f} s)")


@test
def stdio_sigterm_cancels_load(ctx):
    # Issue 13, item 4: with --stdio, SIGTERM cancels a running load as socket
    # mode does, instead of waiting for it to finish.
    stdio_cut_during_load(ctx, lambda d: d.proc.send_signal(signal.SIGTERM), 0, "SIGTERM")


@test
def stdio_client_gone_cancels_load(ctx):
    # Issue 13, item 4: when the client of a --stdio daemon goes away (its
    # editor died: stdin ends and nobody reads stdout), a running load is
    # cancelled instead of run to the end (exit 1: no `exit` came). At a plain
    # end of stdin with the client still reading, requests are still answered
    # (transcripts).
    def client_gone(d):
        d.proc.stdin.close()
        d.proc.stdout.close()

    stdio_cut_during_load(ctx, client_gone, 1, "client gone")


def mcp_load_then_close_stdin(ctx, path, close):
    """heapleakd --mcp: load_dump of `path`; once it reports progress, close
    stdin when `close`. Returns (seconds from the first progress to the exit
    or the answer, exit code or None)."""
    proc = subprocess.Popen([ctx.daemon, "--mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        def send(message):
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "hardening", "version": "1"}}})
        proc.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "load_dump", "arguments": {"path": path}, "_meta": {"progressToken": "p"}}})
        started = time.monotonic()
        while True:
            line = proc.stdout.readline()
            check(line, "the MCP daemon answers load_dump")
            if not line:
                return 0.0, proc.poll()
            message = json.loads(line)
            if message.get("method") == "notifications/progress":
                break
            if message.get("id") == 2:  # done before any progress
                return time.monotonic() - started, None
        t = time.monotonic()
        if not close:
            while json.loads(proc.stdout.readline() or "{}").get("id") != 2:
                pass
            return time.monotonic() - t, None
        proc.stdin.close()
        code = proc.wait(WAIT * SLOW)
        return time.monotonic() - t, code
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@test
def mcp_stdin_closed_cancels_load(ctx):
    # Issue 27, item 12: docs/mcp.md says closing stdin cancels what is
    # running; a load ran to its end before the daemon exited.
    for copies in (24, 72):
        path = big_dump(ctx, copies=copies)
        rest, _ = mcp_load_then_close_stdin(ctx, path, close=False)
        if rest >= 0.6:
            break
    else:
        raise Skip(f"the rest of a load takes only {rest:.2f} s: too fast to tell")
    took, code = mcp_load_then_close_stdin(ctx, path, close=True)
    check(code == 0, f"mcp: stdin closed during a load: exit {code}, expected 0")
    check(took < rest / 2, f"mcp: stdin closed took {took:.2f} s, the rest of the load {rest:.2f} s: it ran the load out")
    print(f"mcp stdin closed to exit: {took:.2f} s (the rest of a load: {rest:.2f} s)")


@test
def max_memory(ctx):
    dumps = gen_dumps(ctx)
    # A budget that admits A (estimate: half the file + 16 MiB) but not A and B together.
    size_a = os.path.getsize(os.path.join(dumps, "A.json"))
    budget_mb = (size_a // 2 + (17 << 20)) // (1 << 20) + 1
    with Daemon(ctx, args=["--max-memory", f"{budget_mb}M"]) as d:
        p = d.peer
        p.initialize()
        results = [load(p, os.path.join(dumps, f"{n}.json")) for n in "ABC"]
        check("result" in results[0], f"A alone fits {budget_mb} MiB: {str(results[0])[:300]}")
        refused = [r for r in results if error_of(r)]
        check(len(refused) == 2, f"B and C should be refused with {budget_mb} MiB: {[str(r)[:100] for r in results]}")
        for r in refused:
            err = expect_error(r, DOMAIN, "overBudget", "load over the budget")
            check("--max-memory" in err["message"], f"the refusal should say what to do: {err['message']}")
        heaps = p.list_heaps()
        check(len(heaps) == 1, f"loaded heaps lost after refusals: {heaps}")
        r = p.call("listHeaps", {})
        check(r["result"]["usedBytes"] <= r["result"]["maxBytes"],
              f"used {r['result']['usedBytes']} over max {r['result']['maxBytes']}")
        # Unloading frees room again.
        p.call("unloadHeap", {"heap": heaps[0]["heap"]})
        r = load(p, os.path.join(dumps, "C.json"))
        check("result" in r, f"after an unload the budget has room: {str(r)[:200]}")


class MemoryCgroup:
    """A fresh memory cgroup (v1 or v2) capped at `limit` bytes, no swap, for
    a child to join (join_command); removed on exit. Skip when this machine
    has none we may write, or in a sanitizer build (its shadow memory does
    not fit a small cap)."""

    def __init__(self, limit):
        if SLOW > 1:
            raise Skip("a sanitizer build's memory does not fit a small cgroup")
        v1, v2 = "/sys/fs/cgroup/memory", "/sys/fs/cgroup"
        name = f"heapleak-test.{os.getpid()}"
        try:
            if os.access(v1, os.W_OK) and os.path.isdir(v1):
                self.dir = os.path.join(v1, name)
                os.mkdir(self.dir)
                self._set("memory.swappiness", 0, optional=True)
            elif os.path.exists(os.path.join(v2, "cgroup.controllers")) and \
                    "memory" in open(os.path.join(v2, "cgroup.subtree_control")).read().split():
                self.dir = os.path.join(v2, name)
                os.mkdir(self.dir)
                self._set("memory.swap.max", 0, optional=True)
            else:
                raise Skip("no writable memory cgroup (v1 or v2) on this machine")
            self.limit(limit)
        except OSError as e:
            raise Skip(f"cannot make a memory cgroup: {e}")

    def v1(self):
        return os.path.exists(os.path.join(self.dir, "memory.limit_in_bytes"))

    def limit(self, limit):
        if self.v1():
            # memsw (memory + swap) may never be below the memory limit: it
            # goes second when lowering, first when raising.
            names = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
            now = int(open(os.path.join(self.dir, names[0])).read())
            for name in names if limit <= now else reversed(names):
                self._set(name, limit, optional=name != names[0])
        else:
            self._set("memory.max", limit)

    def _set(self, name, value, optional=False):
        try:
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(str(value))
        except OSError:
            if not optional:
                raise

    def limit_to_usage_plus(self, margin):
        """Lowers the cap to what the group holds now (its page cache aside) plus `margin`."""
        stat = dict(line.split() for line in open(os.path.join(self.dir, "memory.stat")))
        if self.v1():
            usage = int(open(os.path.join(self.dir, "memory.usage_in_bytes")).read())
            files = int(stat.get("total_active_file", 0)) + int(stat.get("total_inactive_file", 0))
        else:
            usage = int(open(os.path.join(self.dir, "memory.current")).read())
            files = int(stat.get("file", 0))
        self.limit(usage - files + margin)

    def join_command(self, ctx, program):
        """A script that joins the group, then execs `program` with its arguments."""
        path = os.path.join(ctx.work, f"in-cgroup-{os.getpid()}.sh")
        with open(path, "w") as f:
            f.write(f'#!/bin/sh\necho $$ > "{self.dir}/cgroup.procs" && exec "{program}" "$@"\n')
        os.chmod(path, 0o755)
        return path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for _ in range(50):  # its last process may take a moment to leave
            try:
                os.rmdir(self.dir)
                return
            except OSError:
                time.sleep(0.1)


def object_lines(first_address, count, value_bytes=0):
    """`count` OBJECT records of class 0x1000 (STRING records with a value of
    `value_bytes` when not 0), addresses from `first_address` up."""
    if value_bytes:
        fmt = '{"address":"0x%x","type":"STRING","class":"0x1008","bytesize":' + \
            str(value_bytes) + ',"value":"' + "x" * value_bytes + '"}\n'
    else:
        fmt = '{"address":"0x%x","type":"OBJECT","class":"0x1000"}\n'
    return "".join(fmt % (first_address + 40 * k) for k in range(count)).encode()


def memory_dump(ctx, name, objects, fool_the_sampler=False):
    """A plain dump of `objects` short records (~62 bytes a line). With
    fool_the_sampler, the 4 MiB around each of the places core/loading/memory_fit.cpp
    samples line lengths (a quarter, half and three quarters in) hold ~20 KiB
    lines instead, so the estimate sees a few thousand objects, not millions."""
    path = os.path.join(ctx.work, name)
    head = (b'{"address":"0x1000","type":"CLASS","name":"Widget"}\n'
            b'{"address":"0x1008","type":"CLASS","name":"String"}\n')
    chunk = 5000
    body_bytes = len(object_lines(0x7f0000000000, chunk)) * (objects // chunk)
    region = 4 << 20
    total = len(head) + body_bytes + (3 * region if fool_the_sampler else 0)
    windows = [total // 4, total // 2, total * 3 // 4] if fool_the_sampler else []
    address = 0x7f0000000000
    with open(path, "wb") as out:
        out.write(head)
        for _ in range(objects // chunk):
            if windows and out.tell() >= windows[0] - (2 << 20):
                windows.pop(0)
                written = 0
                while written < region:
                    written += out.write(object_lines(address, 16, value_bytes=20000))
                    address += 40 * 16
            out.write(object_lines(address, chunk))
            address += 40 * chunk
    return path


@test
def memory_left_is_the_budget(ctx):
    # Issue 30: without --max-memory, the memory the daemon's machine or cgroup
    # has left is its budget. A load that cannot fit is refused (its low
    # estimate, before it parses much), and one the estimate misjudged is
    # stopped on its course, both with overBudget: never the kernel's OOM
    # kill, which would take every heap the daemon holds with it. The CLI
    # stops such a load the same way.
    # 256 MiB: a load's fixed part (read blocks, the first pages of each
    # column, both halves of a split load) is ~100 MiB. 6 M objects hold
    # 360 MiB at least (the low estimate); the fooled ones as much. The group
    # first: it may skip the test, and then no dump is written for nothing.
    with MemoryCgroup(256 << 20) as group:
        small = memory_dump(ctx, "memory-small.json", 50000)
        medium = memory_dump(ctx, "memory-medium.json", 1000000)
        big = memory_dump(ctx, "memory-big.json", 6000000)
        fooled = memory_dump(ctx, "memory-fooled.json", 6000000, fool_the_sampler=True)
        in_group = Ctx()
        in_group.__dict__.update(ctx.__dict__)
        in_group.daemon = group.join_command(ctx, ctx.daemon)
        with Daemon(in_group) as d:
            p = d.peer
            p.initialize()
            r = load(p, small)
            check("result" in r, f"a small dump fits: {str(r)[:300]}")
            kept = p.list_heaps()
            for path, words in ((big, "loading needs at least"), (fooled, "load stopped")):
                t = time.monotonic()
                r = load(p, path)
                took = time.monotonic() - t
                err = expect_error(r, DOMAIN, "overBudget", f"{os.path.basename(path)} in 256 MiB")
                check(words in err["message"] and "of memory" in err["message"],
                      f"the refusal should say what was left: {err['message']}")
                check(d.alive(), f"the daemon died loading {path}")
                print(f"{os.path.basename(path)}: refused in {took:.2f} s: {err['message']}")
            check(p.list_heaps() == kept, f"the heap loaded first was lost: {p.list_heaps()} vs {kept}")
            # The memory the refused loads took is free again: a million objects load.
            r = load(p, medium)
            check("result" in r, f"after the refusals 1 M objects still load: {str(r)[:300]}")
            # Analyses too: with the cap lowered to what the daemon holds plus
            # 4 MiB, a dominator tree of 1 M objects (16 bytes each, kept) is
            # refused before it starts, and the daemon stays.
            time.sleep(0.5)  # the load's scratch is given back just after its reply
            group.limit_to_usage_plus(4 << 20)
            r = p.call("topRetainers", {"heap": r["result"]["heap"]}, WAIT * SLOW)
            err = expect_error(r, DOMAIN, "overBudget", "a dominator tree in 4 MiB")
            check("needs at least" in err["message"] and "of memory is left" in err["message"],
                  f"the refusal should say what was left: {err['message']}")
            print(f"topRetainers refused: {err['message']}")
            check(len(p.list_heaps()) == 2, f"heaps lost after the refusal: {p.list_heaps()}")
        # The CLI too: the fooled dump passes its estimate, then the load stops
        # (exit 9, overBudget) instead of being killed (137).
        group.limit(256 << 20)
        r = subprocess.run([group.join_command(ctx, ctx.cli), "info", "--no-cache", fooled],
                           capture_output=True, text=True, timeout=WAIT * SLOW)
        check(r.returncode == 9 and "load stopped" in r.stderr,
              f"heapleak info in 256 MiB: exit {r.returncode}, expected 9: {r.stderr[-500:]}")
        print(f"CLI: exit 9: {r.stderr.strip()[-300:]}")


@test
def max_memory_gzip_misnamed(ctx):
    # The estimate must not trust the file name: a gzip called .json (or a
    # high-ratio gzip) is still held to the budget once loaded.
    dumps = gen_dumps(ctx)
    data = open(os.path.join(dumps, "A.json"), "rb").read()
    path = write(ctx, "A-gzipped.json", gzip.compress(data * 3, 1))
    with Daemon(ctx, args=["--max-memory", "24M"]) as d:
        p = d.peer
        p.initialize()
        r = load(p, path)
        used = p.call("listHeaps", {})["result"]
        if "result" in r:
            check(used["usedBytes"] <= used["maxBytes"],
                  f"a gzip named .json loaded past the budget: usedBytes {used['usedBytes']} > maxBytes {used['maxBytes']}")
        else:
            expect_error(r, DOMAIN, "overBudget", "gzip over the budget")


@test
def concurrent_16_clients(ctx):
    dumps = gen_dumps(ctx)
    path = big_dump(ctx)
    with Daemon(ctx, "unix", log="error") as d:
        p = d.connect()
        p.initialize()
        a, b, c = load_abc(p, dumps)
        sample = leaked(dumps, 50)
        big_id = p.request("loadHeap", {"path": path, "workDoneToken": "big"})
        total, clients, window = 10000, 16, 8
        per = total // clients
        errors, counts = [], []
        deadline = time.monotonic() + 60 * SLOW

        def mix(rng, k):
            x = rng.random()
            addr = rng.choice(sample)
            h = rng.choice([a, b, c])
            if x < 0.01:
                return "stats", {"baseline": a, "target": b, "later": c, "limit": 5, "samples": 5}
            if x < 0.02:
                return "root", {"heap": c, "addresses": sample[:5]}
            if x < 0.04:
                return "pathToRoot", {"heap": c, "address": addr}
            if x < 0.30:
                return "listHeaps", {}
            if x < 0.55:
                return "object", {"heap": h, "address": addr}
            if x < 0.75:
                return "references", {"heap": c, "address": addr, "limit": 10}
            if x < 0.90:
                return "referrers", {"heap": c, "address": addr, "limit": 10}
            if x < 0.95:
                return "object", {"heap": "h999", "address": addr}  # unknown heap: an error, still one answer
            return "object", {"heap": c, "address": "0xnothex"}

        def worker(k):
            rng = random.Random(k)
            try:
                q = d.connect()
                q.initialize()
                outstanding, answered, sent = set(), {}, 0
                while (sent < per or outstanding) and time.monotonic() < deadline:
                    while sent < per and len(outstanding) < window:
                        m, params = mix(rng, k)
                        i = q.request(m, params, id=f"c{k}-{sent}")
                        outstanding.add(i)
                        sent += 1
                    r = q.response(None, 30 * SLOW)
                    rid = r.get("id") if isinstance(r, dict) else None
                    if rid in answered:
                        errors.append(f"client {k}: {rid} answered twice")
                    answered[rid] = r
                    if rid not in outstanding:
                        errors.append(f"client {k}: unexpected reply id {rid}: {str(r)[:200]}")
                    outstanding.discard(rid)
                    if "error" in r and r["error"]["code"] in (-32603, -32700, -32600):
                        errors.append(f"client {k}: {rid}: {r['error']}")
                if outstanding:
                    errors.append(f"client {k}: {len(outstanding)} requests unanswered at the deadline")
                counts.append(len(answered))
                q.sock.close()
            except Exception as e:  # noqa: BLE001
                errors.append(f"client {k}: {type(e).__name__}: {e}")

        t = time.monotonic()
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(90 * SLOW)
        elapsed = time.monotonic() - t
        d.check_alive("under 16 clients")
        r = p.response(big_id, WAIT * SLOW * 3)
        check("result" in r, f"the big load during the queries: {str(r)[:300]}")
        heaps = p.list_heaps()
        print(f"{sum(counts)} answers to {clients} clients in {elapsed:.1f} s; heaps {[(h['heap'], h['objects']) for h in heaps]}")
        check(not errors, "\n".join(errors[:20]))
        check(sum(counts) == per * clients, f"answered {sum(counts)} of {per * clients}")
        check(len(heaps) == 4, f"heaps lost: {heaps}")


# ---------------------------------------------------------------- round 2 (issue 13)
def vm_hwm_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    return 0


@test
def file_fifo_and_device(ctx):
    # A FIFO with no writer: opening it blocks, so it must be refused from a
    # stat, and the connection must keep answering. /dev/zero never ends.
    fifo = os.path.join(ctx.work, "dump.fifo")
    os.mkfifo(fifo)
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        for path in (fifo, "/dev/zero"):
            started = time.monotonic()
            r = p.call("loadHeap", {"path": path}, timeout=10)
            err = expect_error(r, DOMAIN, "notReadable", f"loadHeap {path}")
            check(time.monotonic() - started < 5, f"loadHeap {path} took {time.monotonic() - started:.1f} s")
            check("regular file" in err["message"], f"the refusal should say why: {err['message']}")
            p.list_heaps(timeout=5)
    for path in (fifo, "/dev/zero"):
        try:
            r = subprocess.run([ctx.cli, "info", path], capture_output=True, timeout=10)
        except subprocess.TimeoutExpired:
            raise TestFailure(f"heapleak info {path} hung")
        check(r.returncode == 14 and r.stderr.strip(), f"heapleak info {path}: exit {r.returncode} {r.stderr[-300:]!r}")
    # Commands that load several dumps at once size them up first: never by opening a FIFO.
    for command in ("stats", "explain"):
        try:
            r = subprocess.run([ctx.cli, command, fifo, fifo, fifo], capture_output=True, timeout=10)
        except subprocess.TimeoutExpired:
            raise TestFailure(f"heapleak {command} FIFO FIFO FIFO hung")
        check(r.returncode == 14 and b"FIFO" in r.stderr,
              f"heapleak {command} on FIFOs: exit {r.returncode} {r.stderr[-300:]!r}")


def zero_gzip(path, mib):
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    chunk = b"\0" * (1 << 20)
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(z.compress(chunk))
        f.write(z.flush())


@test
def gzip_endless_line(ctx):
    # 512 MiB of NUL bytes gzipped to ~2 MB: one endless line. It must end as
    # notAHeapDump within seconds, without buffering the line.
    path = os.path.join(ctx.work, "zeros.json.gz")
    zero_gzip(path, 512)
    with Daemon(ctx, args=["--max-memory", "256M"]) as d:
        p = d.peer
        p.initialize()
        started = time.monotonic()
        r = p.call("loadHeap", {"path": path}, timeout=60 * SLOW)
        seconds = time.monotonic() - started
        # Refused either way: no heap record, or the stream outgrew the budget.
        expect_error(r, DOMAIN, ["notAHeapDump", "overBudget"], "an endless line")
        check(seconds < 30 * SLOW, f"an endless line took {seconds:.1f} s")
        hwm = vm_hwm_mb(d.proc.pid)
        # ThreadSanitizer shadows every heap byte (its RSS runs ~3x a plain
        # build's here: 689 MB measured); buffering the 512 MiB line would
        # still be far above the scaled bound.
        bound = 256 * (4 if os.environ.get("TSAN_OPTIONS") else 1)
        check(hwm < bound, f"an endless line made the daemon peak at {hwm} MB (bound {bound} MB)")
        check(p.call("listHeaps", {})["result"]["usedBytes"] == 0, "the failed load left a reservation")


@test
def max_memory_high_ratio_gzip(ctx):
    # ~22x compression, past the admission estimate's 8x: admitted, then
    # stopped with overBudget as it grows, everything released.
    path = os.path.join(ctx.work, "ratio.json.gz")
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        f.write(z.compress(b'{"type":"ROOT", "root":"vm", "references":["0x7f0000001000"]}\n'))
        for base in range(0, 1500000, 100000):
            f.write(z.compress(b"".join(
                b'{"address":"0x7f%010x", "type":"OBJECT", "class":"0x7f0000000008", "references":["0x7f%010x"], "memsize":40}\n'
                % (0x1000 + i * 40, 0x1000 + (i + 1) * 40) for i in range(base, base + 100000))))
        f.write(z.flush())
    with Daemon(ctx, args=["--max-memory", "72M"]) as d:
        p = d.peer
        p.initialize()
        r = load(p, path)
        used = p.call("listHeaps", {})["result"]
        check(used["usedBytes"] <= used["maxBytes"], f"loaded past the budget: {used}")
        err = expect_error(r, DOMAIN, "overBudget", "a 22x gzip under 72M")
        check("--max-memory" in err["message"], f"the refusal should say what to do: {err['message']}")
        check(used["usedBytes"] == 0 and used["loading"] == [], f"the failed load was not released: {used}")


@test
def file_cut_plain_warns(ctx):
    # A plain dump cut at 60% loads what it holds, flagged on every surface.
    dumps = gen_dumps(ctx)
    data = open(os.path.join(dumps, "B.json"), "rb").read()
    # Cut in the middle of a record: a cut that happens to land just after a
    # newline leaves a whole (shorter) dump, which rightly does not warn.
    at = len(data) * 6 // 10
    while data[at - 1 : at] == b"\n" or data[at : at + 1] == b"\n":
        at += 1
    cut = write(ctx, "B-cut.json", data[:at])
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        r = load(p, cut)
        check("result" in r, f"a cut dump should load: {str(r)[:300]}")
        res = r["result"]
        check(res.get("truncated") is True, f"not flagged truncated: {res}")
        check(any(w.startswith("truncated: ") for w in res.get("warnings", [])), f"no truncated warning: {res}")
        a = load(p, os.path.join(dumps, "A.json"))["result"]["heap"]
        s = p.call("stats", {"baseline": a, "target": res["heap"]}, timeout=WAIT * SLOW)
        check(any("truncated" in w for w in s["result"]["warnings"]), f"stats does not warn: {s['result']['warnings']}")
        whole = load(p, os.path.join(dumps, "C.json"))["result"]
        check(whole.get("truncated") is False and whole.get("warnings") == [], f"a whole dump warned: {whole}")
    r = subprocess.run([ctx.cli, "stats", os.path.join(dumps, "A.json"), cut], capture_output=True, timeout=60 * SLOW)
    check(r.returncode in (0, 1) and b"truncated" in r.stderr, f"heapleak stats on a cut dump: {r.returncode} {r.stderr[-500:]!r}")
    r = subprocess.run([ctx.cli, "info", cut], capture_output=True, timeout=60 * SLOW)
    check(r.returncode == 0 and b"warning: truncated" in r.stderr, f"heapleak info on a cut dump: {r.returncode} {r.stderr[-500:]!r}")


def wait_report(peer, token, timeout):
    """Reads until the load `token` sends its first progress report (not just begin)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(n.get("method") == "$/progress" and n["params"].get("token") == token and
               n["params"]["value"].get("kind") == "report" for n in peer.notes):
            return True
        try:
            m = peer.read_message(0.2)
        except TestFailure:
            continue
        (peer.inbox if "id" in m and "method" not in m else peer.notes).append(m)
        if "id" in m and "method" not in m:
            return False  # the load answered first
    raise TestFailure("no $/progress report from the load")


@test
def file_rewritten_during_load(ctx):
    # A plain dump is read through a mapping: cut short while it loads (a
    # dump rewritten in place), its pages vanish under the parser. The load
    # must fail with notReadable, and the daemon, its other heaps and the
    # next loads must be unharmed (SIGBUS would have ended the process).
    source = big_dump(ctx, copies=24)
    copy = os.path.join(ctx.work, "rewritten.json")
    dumps = gen_dumps(ctx)
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        (a,) = load_abc(p, dumps, ("A",))
        failed = False
        # The cut must come while the load runs: a stalled test process may
        # see the load end first, so up to three tries. A try the cut reached
        # fails cleanly; one it missed holds the whole dump, and is unloaded.
        for attempt in range(3):
            shutil.copyfile(source, copy)
            size = os.path.getsize(copy)
            load_id = p.request("loadHeap", {"path": copy, "name": f"cut-{attempt}", "workDoneToken": f"t{attempt}"})
            cut = wait_report(p, f"t{attempt}", WAIT * SLOW)
            if cut:
                os.truncate(copy, size // 10)
            r = p.response(load_id, WAIT * SLOW * 3)
            d.check_alive("after a dump was cut short under its load")
            if error_of(r) is not None:
                expect_error(r, DOMAIN, ["notReadable"], "loadHeap of a dump cut short while it loads")
                check("shorter than when the load began" in error_of(r)["message"], f"message: {error_of(r)}")
                failed = True
                break
            check(r["result"]["objects"] > 0 and r["result"]["fileBytes"] == size, f"loaded: {str(r)[:300]}")
            p.call("unloadHeap", {"heap": r["result"]["heap"]})
        check(failed, "in three tries the cut never came while the load ran")
        heaps = p.list_heaps()
        check([h["heap"] for h in heaps] == [a], f"heaps after the failed load: {heaps}")
        # The daemon goes on loading, the cut file included (a dump cut mid-line).
        r = load(p, copy)
        check("result" in r and r["result"].get("truncated") is True, f"reloading the cut dump: {str(r)[:300]}")
        p.call("shutdown")
        p.notify("exit")
        check(d.wait() == 0, "exit after shutdown should be 0")
    cli_on(ctx, copy)


@test
def load_params_nul_and_id_names(ctx):
    dumps = gen_dumps(ctx)
    a = os.path.join(dumps, "A.json")
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        err = expect_error(p.call("loadHeap", {"path": a + "\0.ignored"}), -32602, None, "a NUL in the path")
        check("NUL" in err["message"], f"say why: {err}")
        err = expect_error(p.call("loadHeap", {"path": a, "name": "h2"}), -32602, None, "a name shaped like an id")
        check("h2" in err["message"], f"say which: {err}")
        check(p.list_heaps() == [], "nothing may load")
        # A file named like an id gets a suffixed name.
        link = os.path.join(ctx.work, "h3")
        os.symlink(a, link)
        r = load(p, link)["result"]
        check(r["name"] != "h3" and r["heap"] != r["name"], f"a file named h3 took an id-shaped name: {r}")


@test
def object_after_rewrite(ctx):
    dumps = gen_dumps(ctx)
    path = write(ctx, "A-copy.json", open(os.path.join(dumps, "A.json"), "rb").read())
    with Daemon(ctx) as d:
        p = d.peer
        p.initialize()
        h = load(p, path)["result"]["heap"]
        addr = leaked(dumps, 1)[0]
        check("result" in p.call("object", {"heap": h, "address": addr}), "object before the rewrite")
        data = open(path, "rb").read()
        # Same size, other records: swap two lines' worth of bytes around.
        half = len(data) // 2
        newline = data.index(b"\n", half) + 1
        tmp = path + ".new"
        with open(tmp, "wb") as f:
            f.write(data[newline:] + data[:newline])
        os.replace(tmp, path)
        r = p.call("object", {"heap": h, "address": addr})["result"]
        check("record" not in r, f"a record read from the rewritten dump: {str(r)[:400]}")
        check(r.get("recordErrorReason") == "dumpChanged" and "changed" in r.get("recordError", ""),
              f"object should say the dump changed: {str(r)[:400]}")


@test
def options_size_overflow(ctx):
    # 17179869184G is 2^64 bytes: it wrapped to 0 (no budget); one more to 1 GiB.
    for size in ("17179869184G", "17179869185G", "99999999999999999999"):
        r = subprocess.run([ctx.daemon, "--stdio", "--max-memory", size], input=b"",
                           capture_output=True, timeout=10)
        check(r.returncode != 0 and b"--max-memory" in r.stderr,
              f"--max-memory {size}: exit {r.returncode}, {r.stderr[-300:]!r}")


class TcpDaemon:
    """heapleakd --listen tcp:HOST:PORT with a fresh token file (mode
    `token_mode`) and its log in ctx.work; terminated on exit."""

    def __init__(self, ctx, name, host="127.0.0.1", token_mode=0o600):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family) as probe:
            probe.bind((host, 0))
            self.port = probe.getsockname()[1]
        self.host = host
        self.token = "hardening-token-" + os.urandom(8).hex()
        token_file = write(ctx, f"token-{name}", self.token.encode() + b"\n")
        os.chmod(token_file, token_mode)
        self.log_path = os.path.join(ctx.work, f"tcp-{name}.log")
        listen = f"tcp:[{host}]:{self.port}" if family == socket.AF_INET6 else f"tcp:{host}:{self.port}"
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen([ctx.daemon, "--listen", listen, "--token-file", token_file, "--log=info"],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=20)

    def log(self):
        return open(self.log_path, errors="replace").read()

    def connect(self, wait_for_listener=False):
        deadline = time.monotonic() + WAIT
        while True:
            try:
                return socket.create_connection((self.host, self.port), timeout=WAIT)
            except OSError:
                if not wait_for_listener:
                    raise
                check(time.monotonic() < deadline and self.proc.poll() is None,
                      f"no TCP listener on {self.host}: {self.log()[-500:]}")
                time.sleep(0.05)

    def peer(self, s):
        s.setblocking(False)
        return Peer(s.fileno(), s.fileno(), on_dead=lambda: self.proc.poll() is not None)


@test
def tcp_ipv6_loopback_and_token_mode(ctx):
    # The docs list ::1; it is written tcp:[::1]:PORT. A token file others
    # can read is accepted with a warning.
    if not socket.has_ipv6:
        raise Skip("no IPv6")
    try:
        d = TcpDaemon(ctx, "ipv6", host="::1", token_mode=0o644)
    except OSError:
        raise Skip("no IPv6 loopback")
    with d:
        s = d.connect(wait_for_listener=True)
        p = d.peer(s)
        p.initialize({"token": d.token})
        check(p.list_heaps() == [], "listHeaps over [::1]")
        s.close()
        text = d.log()
        check("0644" in text and "token" in text, f"no warning about a world-readable token file: {text[-500:]}")


@test
def tcp_unauthenticated_message_limit(ctx):
    # Before the token, a connection may not make the daemon buffer 256 MiB:
    # a 100 MB announced length is refused at once, before its body is sent.
    with TcpDaemon(ctx, "limit") as d:
        s = d.connect(wait_for_listener=True)
        s.sendall(b"Content-Length: 100000000\r\n\r\n" + b"{" * 65536)
        m = d.peer(s).read_message(timeout=5)
        check(m.get("error", {}).get("code") == -32600, f"a 100 MB message before initialize: {str(m)[:300]}")
        s.close()
        # An authenticated client still sends big messages.
        g = d.connect()
        gp = d.peer(g)
        gp.initialize({"token": d.token})
        r = gp.call("listHeaps", {"padding": "x" * (1 << 20)})
        check("result" in r or error_of(r)["code"] == -32602, f"a 1 MiB message after initialize: {str(r)[:300]}")
        g.close()


@test
def tcp_idle_strangers(ctx):
    # 64 idle connections without the token must not lock the token holder
    # out, and a connection that never authenticates is closed (10 s deadline).
    with TcpDaemon(ctx, "idle") as d:
        idle = []
        try:
            idle.append(d.connect(wait_for_listener=True))
            started = time.monotonic()
            for _ in range(63):
                idle.append(d.connect())
            time.sleep(0.5)
            g = d.connect()
            gp = d.peer(g)
            gp.initialize({"token": d.token})
            check(gp.list_heaps(timeout=5) == [], "the token holder is served beside 64 idle strangers")
            # Strangers past the cap of 8 were closed to make room (the oldest
            # first); the last ones are closed by the 10 s deadline.
            for which, s in (("the first", idle[0]), ("the last", idle[-1])):
                s.settimeout(20)
                try:
                    got = s.recv(100)
                except (ConnectionResetError, socket.timeout) as e:
                    got = e
                check(got == b"" or isinstance(got, ConnectionResetError), f"{which} idle stranger was not closed: {got!r}")
            waited = time.monotonic() - started
            check(8 < waited < 16, f"the last idle stranger was closed after {waited:.1f} s, not at the 10 s deadline")
            g.close()
        finally:
            for s in idle:
                s.close()


# ---------------------------------------------------------------- access
@test
def tcp_token_pipelined(ctx):
    # A client without the token sends initialize and, in the same write, a
    # loadHeap: nothing may run for it.
    dumps = gen_dumps(ctx)
    token = "hardening-token-" + os.urandom(8).hex()
    tfile = write(ctx, "token", token.encode() + b"\n")
    os.chmod(tfile, 0o600)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    d = Daemon.__new__(Daemon)
    d.ctx, d.dir, d.sockets, d.socket_path = ctx, ctx.work, [], None
    d.log_path = os.path.join(ctx.work, "tcp.log")
    d.log = open(d.log_path, "wb")
    d.proc = subprocess.Popen([ctx.daemon, "--listen", f"tcp:127.0.0.1:{port}", "--token-file", tfile, "--log=info"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=d.log)
    with d:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
                break
            except OSError:
                check(time.monotonic() < deadline and d.alive(), "TCP daemon never listened")
                time.sleep(0.05)
        target = os.path.join(dumps, "A.json")
        for token_given in (None, "wrong-token-wrong-token"):
            init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}
            if token_given:
                init["params"]["initializationOptions"] = {"token": token_given}
            s.sendall(frame(init) + frame({"jsonrpc": "2.0", "id": 1, "method": "loadHeap", "params": {"path": target}}) +
                      frame({"jsonrpc": "2.0", "id": 2, "method": "stopDaemon"}))
            s.settimeout(10)
            got = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    got += chunk
            except (socket.timeout, ConnectionResetError):
                pass
            s.close()
            check(b'"objects"' not in got, f"an unauthenticated client got a loadHeap answer: {got[:300]!r}")
            time.sleep(1.5)  # let a load that should not have started finish
            d.check_alive("after an unauthenticated stopDaemon (it must be refused, not obeyed)")
            good = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
            good.setblocking(False)
            gp = Peer(good.fileno(), good.fileno(), on_dead=lambda: not d.alive())
            gp.initialize({"token": token})
            heaps = gp.list_heaps()
            good.close()
            check(heaps == [], f"a client without the right token ({token_given}) made the daemon load {heaps}")
            s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        s.close()


@test
def unix_socket_dir_permissions(ctx):
    # A socket directory the daemon creates is 0700; an existing one that
    # others can enter or write is refused or tightened, never used as is.
    base = short_temp_dir()
    fresh = os.path.join(base, "new", "heapleakd.sock")
    proc = subprocess.Popen([ctx.daemon, "--listen", "unix:" + fresh], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + WAIT
        while not os.path.exists(fresh):
            check(time.monotonic() < deadline and proc.poll() is None, "no socket")
            time.sleep(0.05)
        mode = os.stat(os.path.dirname(fresh)).st_mode & 0o777
        check(mode == 0o700, f"created socket dir mode {oct(mode)}, expected 0700")
        check(os.stat(fresh).st_mode & 0o777 == 0o600, f"socket mode {oct(os.stat(fresh).st_mode & 0o777)}")
    finally:
        proc.terminate()
        proc.wait(WAIT)
    shared = os.path.join(base, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o777)
    sock = os.path.join(shared, "heapleakd.sock")
    proc = subprocess.Popen([ctx.daemon, "--listen", "unix:" + sock], stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)
        if proc.poll() is not None:
            return  # refused: fine
        mode = os.stat(shared).st_mode & 0o777
        check(mode & 0o077 == 0, f"heapleakd serves from a world-writable directory {shared} ({oct(mode)}): "
              "another user can replace or remove its socket")
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(WAIT)


@test
def foreign_socket_refused(ctx):
    if os.geteuid() != 0:
        raise Skip("needs root to chown a socket to another user")
    base = short_temp_dir()
    path = os.path.join(base, "heapleakd.sock")
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.close()
    os.chown(path, 65534, 65534)
    r = subprocess.run([ctx.daemon, "--listen", "unix:" + path], capture_output=True, timeout=WAIT)
    check(r.returncode != 0 and b"another user" in r.stderr, f"someone else's socket: exit {r.returncode} {r.stderr!r}")
    check(os.path.exists(path), "the other user's socket was removed")


# ---------------------------------------------------------------- round 4 (issue 42)
def run_cli(ctx, args, timeout=None, **kw):
    """The CLI; its stdout and stderr as bytes, never a hang or a signal."""
    try:
        r = subprocess.run([ctx.cli] + list(args), capture_output=True, timeout=timeout or WAIT * SLOW, **kw)
    except subprocess.TimeoutExpired:
        raise TestFailure(f"heapleak {' '.join(args)[:200]} hung")
    check(r.returncode >= 0, f"heapleak {args[0]} died of signal {-r.returncode}: {r.stderr[-1000:]!r}")
    return r


def series_in(ctx, folder, count=2):
    """`count` dumps of one generated series (A, B[, C]) copied into `folder`."""
    dumps = gen_dumps(ctx)
    os.makedirs(folder, exist_ok=True)
    for name in "ABC"[:count]:
        shutil.copy(os.path.join(dumps, f"{name}.json"), os.path.join(folder, f"{name}.json"))


@test
def fleet_hostile_folder_names(ctx):
    """Capture folders named `$(touch X)` and `a<newline>b`: the docs' recipe
    (JSON argv lines counted, then `xargs` over `heapleak fleet --run N`)
    runs no shell on the names, creates no X, and writes both series' rows;
    the shell form leaves the newline's series out instead of splitting it."""
    root = os.path.join(ctx.work, "captures")
    series_in(ctx, os.path.join(root, "$(touch X)"))
    series_in(ctx, os.path.join(root, "a\nb"))
    cli_dir = os.path.dirname(os.path.abspath(ctx.cli))
    env = dict(os.environ, PATH=cli_dir + os.pathsep + os.environ.get("PATH", ""))
    # docs/fleet.md, "Running the series elsewhere", word for word but the folder.
    recipe = ('mkdir -p rows\n'
              'heapleak fleet captures --print-commands --format json --out-dir rows > commands.jsonl\n'
              'n=$(wc -l < commands.jsonl)\n'
              'seq "$n" | xargs -P 2 -n 1 heapleak fleet captures --out-dir rows --run\n'
              'cat rows/*.jsonl > fleet.jsonl\n')
    r = subprocess.run(["sh", "-ec", recipe], cwd=ctx.work, env=env, capture_output=True, timeout=WAIT * SLOW * 2)
    made = [os.path.join(d, f) for d, _, files in os.walk(ctx.work) for f in files if f == "X"]
    check(not made and not os.path.exists("X"), f"a folder name ran as shell: {made}")
    check(r.returncode == 0, f"the recipe failed: exit {r.returncode}: {r.stderr[-1500:]!r}")
    with open(os.path.join(ctx.work, "commands.jsonl")) as f:
        commands = [json.loads(line) for line in f]
    check(len(commands) == 2, f"expected 2 commands, got {commands}")
    for words in commands:
        dumps = [w for w in words if w.endswith(".json") and not w.endswith(".jsonl")]
        check(len(dumps) == 2 and all(os.path.exists(os.path.join(ctx.work, d)) for d in dumps),
              f"a JSON command names files that are not there: {words}")
    check(sorted(os.listdir(os.path.join(ctx.work, "rows"))) == ["0001.jsonl", "0002.jsonl"],
          f"rows: {os.listdir(os.path.join(ctx.work, 'rows'))}")
    table = subprocess.run([ctx.cli, "fleet", "captures"], cwd=ctx.work, capture_output=True, timeout=WAIT * SLOW)
    with open(os.path.join(ctx.work, "fleet.jsonl"), "rb") as f:
        check(f.read() == table.stdout, "the recipe's table differs from heapleak fleet's")
    # The form for people: sh-quoted, one command a line; the newline's series is left out.
    import shlex
    r = run_cli(ctx, ["fleet", "captures", "--print-commands"], cwd=ctx.work)
    check(r.returncode == 1 and b"control character" in r.stderr, f"shell form: exit {r.returncode} {r.stderr!r}")
    lines = [line for line in r.stdout.decode().splitlines() if not line.startswith("#")]
    check(len(lines) == 1, f"shell form: expected the one safe command, got {lines}")
    words = shlex.split(lines[0])
    check(any(w.endswith("$(touch X)/A.json") for w in words), f"shell form: {words}")
    r = run_cli(ctx, ["fleet", "captures", "--run", "3"], cwd=ctx.work)
    check(r.returncode == 1 and b"there are 2 commands" in r.stderr, f"--run 3: {r.returncode} {r.stderr!r}")


def cli_status(r):
    return f"exit {r.returncode}: {r.stderr.decode(errors='replace')[-600:]}"


@test
def safe_write_links_devices_and_folders(ctx):
    """Every file heapleak writes goes through core/safe_write: a baseline
    that is a symlink to a shared file is refused (the shared file and the
    link untouched); a character device (a mknod'ed /dev/full) is written
    through and fails, never replaced by a regular file; -o through a link
    planted at the report's name is refused; a folder of another user, or
    one others may write, is refused; `redact IN /dev/stdout` writes to
    stdout and leaves /dev/stdout a link (in a private /dev)."""
    dumps = gen_dumps(ctx)
    a, b, c = (os.path.join(dumps, f"{n}.json") for n in "ABC")
    shared = write(ctx, "shared.txt", b"someone else's file\n")
    link = os.path.join(ctx.work, "baseline.json")
    os.symlink(shared, link)
    r = run_cli(ctx, ["check", a, b, c, "--no-cache", "--write-baseline", link])
    check(r.returncode != 0 and b"symbolic link" in r.stderr, f"baseline symlink: {cli_status(r)}")
    check(os.path.islink(link) and open(shared, "rb").read() == b"someone else's file\n",
          "the baseline's link or the shared file was changed")
    # A device: written through (and /dev/full fails), never renamed over.
    device = os.path.join(ctx.work, "full")
    try:
        os.mknod(device, 0o666 | 0o020000, os.makedev(1, 7))
    except PermissionError:
        raise Skip("mknod needs root")
    r = run_cli(ctx, ["check", a, b, c, "--no-cache", "--write-baseline", device])
    check(r.returncode != 0 and b"No space left" in r.stderr, f"baseline on a full device: {cli_status(r)}")
    import stat as st_
    check(st_.S_ISCHR(os.lstat(device).st_mode), "the device node was replaced by a regular file")
    # A link planted at a report's name (-o goes through the same module).
    planted = os.path.join(ctx.work, "report.txt")
    os.symlink(shared, planted)
    r = run_cli(ctx, ["check", a, b, c, "--no-cache", "-o", planted])
    check(b"symbolic link" in r.stderr and open(shared, "rb").read() == b"someone else's file\n",
          f"-o through a planted link: {cli_status(r)}")
    # Folders: another user's, and one anyone may write (no sticky bit).
    theirs = os.path.join(ctx.work, "theirs")
    os.mkdir(theirs, 0o755)
    os.chown(theirs, 65534, 65534)
    r = run_cli(ctx, ["check", a, b, c, "--no-cache", "--write-baseline", os.path.join(theirs, "b.json")])
    check(r.returncode != 0 and b"belongs to another user" in r.stderr, f"another user's folder: {cli_status(r)}")
    check(os.listdir(theirs) == [], f"something was written into another user's folder: {os.listdir(theirs)}")
    open_dir = os.path.join(ctx.work, "open")
    os.mkdir(open_dir)
    os.chmod(open_dir, 0o777)
    r = run_cli(ctx, ["redact", a, os.path.join(open_dir, "A.json")])
    check(r.returncode != 0 and b"may be written by other users" in r.stderr, f"a 0777 folder: {cli_status(r)}")
    check(os.listdir(open_dir) == [], f"redact wrote into a 0777 folder: {os.listdir(open_dir)}")
    # The happy path: a new baseline is a regular 0600 file, an old one keeps its mode.
    good = os.path.join(ctx.work, "good.json")
    r = run_cli(ctx, ["check", a, b, c, "--no-cache", "--write-baseline", good])
    check(os.path.isfile(good) and os.stat(good).st_mode & 0o777 == 0o600, f"a new baseline: {cli_status(r)}")
    os.chmod(good, 0o644)
    run_cli(ctx, ["check", a, b, c, "--no-cache", "--write-baseline", good])
    check(os.stat(good).st_mode & 0o777 == 0o644, "a rewritten baseline lost its mode")
    check([n for n in os.listdir(ctx.work) if ".tmp." in n] == [], "temporaries left behind")
    # redact IN /dev/stdout, in a private /dev: the link stays a link.
    if not shutil.which("unshare"):
        raise Skip("no unshare")
    key = write(ctx, "key", b"k" * 16)
    script = ('mount -t tmpfs none /dev && ln -s /proc/self/fd/1 /dev/stdout && '
              '"$0" redact "$1" /dev/stdout --key-file "$3" > "$2" && test -L /dev/stdout && echo still-a-link >&2')
    out = os.path.join(ctx.work, "stdout.json")
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, ctx.cli, a, out, key],
                       capture_output=True, timeout=WAIT * SLOW)
    if r.returncode != 0 and b"unshare" in r.stderr:
        raise Skip(f"unshare -m: {r.stderr!r}")
    check(r.returncode == 0 and b"still-a-link" in r.stderr, f"redact IN /dev/stdout: {cli_status(r)}")
    in_file = os.path.join(ctx.work, "copy.json")
    run_cli(ctx, ["redact", a, in_file, "--key-file", key])
    with open(out, "rb") as f, open(in_file, "rb") as g:
        check(f.read() == g.read(), "the copy on stdout differs from the copy in a file")


def hostile_dump_text():
    """A dump with spaces after its colons (a re-serialised dump), a String
    and a dynamic Symbol holding secrets."""
    lines = [
        {"type": "ROOT", "root": "vm", "references": ["0x1000"]},
        {"address": "0x2000", "type": "CLASS", "name": "String", "references": []},
        {"address": "0x1000", "type": "ARRAY", "class": "0x2000", "length": 2, "references": ["0x1010", "0x1020"]},
        {"address": "0x1010", "type": "STRING", "class": "0x2000", "bytesize": 19, "value": "sk_live_SECRETVALUE"},
        {"address": "0x1020", "type": "SYMBOL", "class": "0x2000", "value": "user_SECRETSYMBOL"},
    ]
    return "".join(json.dumps(line, separators=(", ", ": ")) + "\n" for line in lines).encode()


@test
def redact_symbols_spacing_and_bounds(ctx):
    """`heapleak redact` redacts Symbol values and dumps with spaces after
    colons; refuses (exit 7, nothing written) a dump with a line it cannot
    read, and one whose line passes the loader's cap; refuses a FIFO or
    /dev/zero key file at once; refuses two inputs of one name into a
    folder; removes a killed redact's temporaries (dead pid, ours only)."""
    dump = write(ctx, "spaced.json", hostile_dump_text())
    out = os.path.join(ctx.work, "spaced.redacted.json")
    r = run_cli(ctx, ["redact", dump, out])
    check(r.returncode == 0 and b"2 of 5 records" in r.stderr, f"spaced dump: {cli_status(r)}")
    copy = open(out, "rb").read()
    check(b"SECRET" not in copy, f"a secret survived: {copy!r}")
    check(len(copy) == len(hostile_dump_text()), "the copy's size differs")
    before = run_cli(ctx, ["info", dump, "--json", "--no-cache"])
    after = run_cli(ctx, ["info", out, "--json", "--no-cache"])
    check(json.loads(before.stdout)["objects"] == json.loads(after.stdout)["objects"],
          f"the copy loads differently: {before.stdout[:300]!r} vs {after.stdout[:300]!r}")
    # A binary String (bytes that are not UTF-8, as Ruby writes them raw): the
    # loader skips that line as broken, and must skip it in the copy too.
    binary = write(ctx, "binary.json", hostile_dump_text() +
                   b'{"address":"0x1030", "type":"STRING", "class":"0x2000", "value":"SECRET\xc3(\xff"}\n')
    binary_out = os.path.join(ctx.work, "binary.redacted.json")
    r = run_cli(ctx, ["redact", binary, binary_out])
    check(r.returncode == 0 and b"SECRET" not in open(binary_out, "rb").read(), f"binary string: {cli_status(r)}")
    infos = [json.loads(run_cli(ctx, ["info", p, "--json", "--no-cache"]).stdout) for p in (binary, binary_out)]
    check([(i["objects"], i["brokenLines"]) for i in infos] == [(infos[0]["objects"], 1)] * 2,
          f"the copy loads differently: {[(i['objects'], i['brokenLines']) for i in infos]}")
    # An unreadable line in the middle: refused, nothing written.
    bad = write(ctx, "bad.json", hostile_dump_text().replace(b'{"address": "0x1020"', b'{"address" "0x1020"'))
    bad_out = os.path.join(ctx.work, "bad.redacted.json")
    r = run_cli(ctx, ["redact", bad, bad_out])
    check(r.returncode == 7 and b"line 5" in r.stderr and not os.path.exists(bad_out), f"unreadable line: {cli_status(r)}")
    # A line past the loader's 64 MiB cap, gzipped small: refused at the cap.
    huge = os.path.join(ctx.work, "huge.json.gz")
    with gzip.open(huge, "wb", compresslevel=1) as f:
        f.write(b'{"address":"0x1", "type":"STRING", "value":"')
        chunk = b"a" * (1 << 20)
        for _ in range(70):
            f.write(chunk)
        f.write(b'"}\n')
    r = run_cli(ctx, ["redact", huge, os.path.join(ctx.work, "huge.out.json")])
    check(r.returncode == 7 and b"line cap" in r.stderr, f"a line over the cap: {cli_status(r)}")
    # Key files: a FIFO and /dev/zero are refused at once.
    fifo = os.path.join(ctx.work, "key.fifo")
    os.mkfifo(fifo)
    for key in (fifo, "/dev/zero"):
        t = time.monotonic()
        r = run_cli(ctx, ["redact", dump, out, "--key-file", key], timeout=10 * SLOW)
        check(r.returncode == 2 and b"not a regular file" in r.stderr, f"key file {key}: {cli_status(r)}")
        check(time.monotonic() - t < 5 * SLOW, f"key file {key} took {time.monotonic() - t:.1f} s")
    # Two inputs of one name into one folder.
    for w in ("w1", "w2"):
        os.makedirs(os.path.join(ctx.work, w))
        shutil.copy(dump, os.path.join(ctx.work, w, "A.json"))
    dest = os.path.join(ctx.work, "dest")
    os.mkdir(dest)
    r = run_cli(ctx, ["redact", os.path.join(ctx.work, "w1/A.json"), os.path.join(ctx.work, "w2/A.json"), dest])
    check(r.returncode == 2 and b"would both be copied" in r.stderr and os.listdir(dest) == [],
          f"duplicate names: {cli_status(r)}")
    # A killed redact's temporaries: a dead pid's of ours go; a live one's and another user's stay.
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = os.path.join(dest, f"A.json.tmp.{gone.pid}.0123456789abcdef")
    alive = os.path.join(dest, f"A.json.tmp.{os.getpid()}.0123456789abcdef")
    foreign = os.path.join(dest, f"B.json.tmp.{gone.pid}.fedcba9876543210")
    for path in (dead, alive, foreign):
        with open(path, "wb") as f:
            f.write(b"x" * 4096)
    os.chown(foreign, 65534, 65534)
    r = run_cli(ctx, ["redact", os.path.join(ctx.work, "w1/A.json"), dest])
    check(r.returncode == 0, f"redact into dest: {cli_status(r)}")
    check(not os.path.exists(dead), "a dead redact's temporary was left")
    check(os.path.exists(alive) and os.path.exists(foreign), "a live or foreign temporary was removed")


@test
def redact_copies_manifests(ctx):
    """`heapleak redact` copies each dump's capture manifest (written by the
    gem's own Manifest code) beside the copy: pid, host, process start and
    dump times kept, so fleet keeps the series; the program and the dump's
    name are masked; "dump" names the copy."""
    src = os.path.join(ctx.work, "src")
    series_in(ctx, src, 3)
    lib = os.path.join(os.path.dirname(ctx.gen), "..", "..", "clients", "ruby", "lib")
    ruby = ('require "heapleak/capture/version"; require "heapleak/capture/manifest"\n'
            # the gem's own result type: a manifest built as the gem builds it
            'require "heapleak/capture/dump_writer"; R = Heapleak::Capture::DumpWriter::Result\n'
            'D = Struct.new(:reason)\n'
            'ARGV.each_with_index do |path, k|\n'
            '  t = Time.utc(2026, 3, 2, 6, 0, 0) + 3600 * k\n'
            '  r = R.new(path: path, name: "customer-acme-SECRET", mode: :fork, pause_seconds: 0.01, dump_seconds: 0.5,'
            ' started_at: t, finished_at: t + 1, bytes: 1, bytes_uncompressed: 2, redacted: false)\n'
            '  gc = Heapleak::Capture::Manifest.gc_facts.merge("count" => 10 + k)\n'
            '  m = Heapleak::Capture::Manifest.build(r, decision: D.new("manual"), gc: gc, tracing: {"enabled" => false})\n'
            '  m["process"]["program"] = "puma --token SECRET-TOKEN"\n'
            '  Heapleak::Capture::Manifest.write(Heapleak::Capture::Manifest.path_for(path), m)\n'
            'end\n')
    dumps = [os.path.join(src, f"{n}.json") for n in "ABC"]
    subprocess.run(["ruby", "-I", lib, "-e", ruby] + dumps, check=True, timeout=WAIT)
    dest = os.path.join(ctx.work, "dest")
    os.mkdir(dest)
    r = run_cli(ctx, ["redact"] + dumps + [dest])
    check(r.returncode == 0, f"redact: {cli_status(r)}")
    for n in "ABC":
        original = json.load(open(os.path.join(src, f"{n}.manifest.json")))
        path = os.path.join(dest, f"{n}.manifest.json")
        check(os.path.exists(path), f"no manifest beside the copy of {n}")
        text = open(path).read()
        check("SECRET" not in text, f"a secret in the copied manifest: {text}")
        copied = json.loads(text)
        for keys in (("process", "pid"), ("process", "hostname"), ("process", "started_at"),
                     ("capture", "started_at"), ("gc", "count")):
            check(copied[keys[0]][keys[1]] == original[keys[0]][keys[1]], f"{n}: {keys} changed")
        check(copied["dump"] == f"{n}.json" and copied["capture"]["redacted"] is True, f"{n}: {copied}")
    r = run_cli(ctx, ["fleet", dest])
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    check(r.returncode == 0 and rows, f"fleet over the copies: {cli_status(r)}")
    check(all(row["time_source"] == "manifest" and row["pid"] for row in rows), f"fleet lost the manifests: {rows[0]}")
    check(abs(rows[0]["hours"] - 2.0) < 1e-6, f"hours from the copies' manifests: {rows[0]['hours']}")


class FakeCaptureSocket:
    """A unix socket that plays the capture gem badly: `behave(conn)` runs on
    the one connection after the request line is read."""

    def __init__(self, ctx, behave):
        base = short_temp_dir()
        self.path = os.path.join(base, "heapleak-1.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(1)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, args=(behave,), daemon=True)
        self.thread.start()

    def serve(self, behave):
        self.listener.settimeout(WAIT)
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(WAIT)
            data = b""
            while b"\n" not in data:
                got = conn.recv(65536)
                if not got:
                    return
                data += got
            try:
                behave(conn, self.stop)
            except OSError:
                pass  # the client gave up: what the test wants

    def close(self):
        self.stop.set()
        self.listener.close()
        shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)


@test
def capture_bounds_and_escapes(ctx):
    """`heapleak capture` against a socket that does not play the gem: one
    that stops talking is given up after --idle-timeout (exit 1, said); an
    endless line is cut at 1 MiB; junk and an `ok` with no dumps are errors,
    not exit 0; the process's strings reach the terminal escaped (ESC, OSC,
    C1, bidi). Each case ends in about a second."""
    def silent(conn, stop):
        conn.sendall(b'{"event":"dumping","name":"A","reason":"fork"}\n')
        stop.wait(WAIT)

    def endless(conn, stop):
        chunk = b"a" * 65536
        while not stop.is_set():
            conn.sendall(chunk)

    def junk(conn, stop):
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    def ok_without_dumps(conn, stop):
        conn.sendall(b'{"ok":true}\n')

    def hostile_strings(conn, stop):
        conn.sendall(b'{"event":"dumping","name":"A\\u001b]0;owned\\u0007","reason":"x\\u009b31m\\u202e"}\n'
                     b'{"ok":false,"kind":"refused","error":"no \\u001b[2J way"}\n')

    cases = [(silent, b"said nothing for 1 s"), (endless, b"over 1 MiB"), (junk, b"not a capture answer"),
             (ok_without_dumps, b"without the dumps"), (hostile_strings, b"no \\x1B[2J way")]
    for behave, said in cases:
        fake = FakeCaptureSocket(ctx, behave)
        try:
            t = time.monotonic()
            r = run_cli(ctx, ["capture", fake.path, "--out", ctx.work, "--idle-timeout", "1s"], timeout=30 * SLOW)
            took = time.monotonic() - t
        finally:
            fake.close()
        print(f"{behave.__name__}: exit {r.returncode} in {took:.2f} s")
        check(r.returncode == 1, f"{behave.__name__}: {cli_status(r)}")
        check(said in r.stderr, f"{behave.__name__}: expected {said!r} in {r.stderr[-400:]!r}")
        for raw in (b"\x1b", "\u009b".encode(), "\u202e".encode(), b"\x07"):
            check(raw not in r.stderr and raw not in r.stdout, f"{behave.__name__}: {raw!r} reached the terminal")


@test
def root_dot_escapes_c1_and_bidi(ctx):
    """`heapleak root`'s graph on stdout: a class named with a C1 control
    (CSI, U+009B) and a bidi override (U+202E) is printed escaped."""
    name = "Evil\u009b31m\u202eCache"
    lines = [
        {"type": "ROOT", "root": "vm", "references": ["0x1000"]},
        {"address": "0x2000", "type": "CLASS", "name": name, "references": ["0x1000"]},
        {"address": "0x1000", "type": "OBJECT", "class": "0x2000", "references": ["0x1010"]},
        {"address": "0x1010", "type": "STRING", "class": "0x2000", "value": "x"},
    ]
    dump = write(ctx, "evil.json", "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode())
    r = run_cli(ctx, ["root", dump, "0x1010", "--no-cache"])
    check(r.returncode in (0, 1) and r.stdout, f"root: {cli_status(r)}")
    check("\u009b".encode() not in r.stdout and "\u202e".encode() not in r.stdout,
          f"raw C1/bidi in the dot: {r.stdout[:600]!r}")
    check(b"Evil" in r.stdout, f"the class is not in the graph: {r.stdout[:600]!r}")


@test
def fleet_forged_manifests_warn(ctx):
    """Manifests forged so that two workers' dumps (two Ruby processes, in
    two folders) claim one host, pid and start: fleet warns that one process
    spans two folders and keeps each folder a series of its own (both
    workers' rows are there); explain given the dumps as one series runs the
    heap-page check although the manifests agree, and says they are two."""
    root = os.path.join(ctx.work, "captures")
    for worker, scenario in (("w1", "class_cache"), ("w2", "global_array")):
        folder = os.path.join(root, worker)
        os.makedirs(folder)
        src = gen_dumps(ctx, scenario)
        for name in "AB":
            shutil.copy(os.path.join(src, f"{name}.json"), os.path.join(folder, f"{name}.json"))
    count = 10
    for worker in ("w1", "w2"):
        for name in "AB":
            manifest = {"format": "heapleak-capture-manifest", "version": 1, "dump": f"{name}.json",
                        "process": {"pid": 4000, "started_at": "2026-03-02T06:59:43.00Z", "hostname": "web-1"},
                        "gc": {"count": count, "compact_count": 0},
                        "capture": {"mode": "fork", "started_at": f"2026-03-02T07:{count:02d}:00.000000Z"}}
            count += 1
            with open(os.path.join(root, worker, f"{name}.manifest.json"), "w") as f:
                json.dump(manifest, f)
    r = run_cli(ctx, ["fleet", root, "--no-cache", "--jobs", "1"], timeout=WAIT * SLOW * 3)
    err = r.stderr.decode(errors="replace")
    check("lie in 2 folders" in err, f"no warning that one process spans two folders: {err[-1200:]}")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    folders = {os.path.basename(os.path.dirname(row["dumps"][0])) for row in rows}
    check(r.returncode == 0 and "2 series found" in err and folders == {"w1", "w2"},
          f"the two workers were not two series: exit {r.returncode}, rows from {folders}: {err[-800:]}")
    # The same forged manifests given to explain as one series: the pages tell.
    r = run_cli(ctx, ["explain", os.path.join(root, "w1", "A.json"), os.path.join(root, "w1", "B.json"),
                      os.path.join(root, "w2", "A.json"), "--no-cache"], timeout=WAIT * SLOW * 3)
    err = r.stderr.decode(errors="replace")
    check("not from one process" in err and "manifests name one process" in err,
          f"explain trusted forged manifests: {cli_status(r)}")


@test
def fleet_removes_dead_scratch(ctx):
    """A fleet killed by SIGKILL leaves its scratch folder
    ($TMPDIR/heapleak-fleet-PID-XXXXXX); the next fleet removes it, and only
    it: not a live fleet's, not another user's, not a name of someone else."""
    tmp = os.path.join(ctx.work, "tmp")
    os.mkdir(tmp)
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = os.path.join(tmp, f"heapleak-fleet-{gone.pid}-a1B2c3")
    alive = os.path.join(tmp, f"heapleak-fleet-{os.getpid()}-d4E5f6")
    theirs = os.path.join(tmp, f"heapleak-fleet-{gone.pid}-g7H8i9")
    other = os.path.join(tmp, "heapleak-fleet-notes")
    for path in (dead, alive, theirs, other):
        os.mkdir(path, 0o700)
        with open(os.path.join(path, "0.jsonl"), "w") as f:
            f.write("{}\n")
    os.chown(theirs, 65534, 65534)
    series_in(ctx, os.path.join(ctx.work, "captures", "w1"))
    r = run_cli(ctx, ["fleet", os.path.join(ctx.work, "captures"), "--no-cache"], env=dict(os.environ, TMPDIR=tmp))
    check(r.returncode == 0, f"fleet: {cli_status(r)}")
    left = sorted(os.listdir(tmp))
    check(left == sorted(os.path.basename(p) for p in (alive, theirs, other)),
          f"the scratch folders left: {left}")


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("test", choices=sorted(TESTS) + ["list"])
    args = ap.parse_args()
    if args.test == "list":
        print("\n".join(sorted(TESTS)))
        return 0
    ctx = Ctx()
    ctx.daemon, ctx.cli, ctx.fixtures, ctx.gen = args.daemon, args.cli, args.fixtures, args.gen
    ctx.shared = os.path.join(args.work, "shared")
    os.makedirs(ctx.shared, exist_ok=True)
    ctx.work = tempfile.mkdtemp(prefix=args.test + "-", dir=args.work)
    try:
        TESTS[args.test](ctx)
    except Skip as e:
        print(f"SKIP {args.test}: {e}")
        return 77
    except TestFailure as e:
        print(f"FAIL {args.test}: {e}\n(work dir kept: {ctx.work})")
        return 1
    shutil.rmtree(ctx.work, ignore_errors=True)
    print(f"PASS {args.test} ({time.monotonic() - START:.1f} s)")
    return 0


START = time.monotonic()
if __name__ == "__main__":
    sys.exit(main())
