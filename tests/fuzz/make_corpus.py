#!/usr/bin/env python3
"""Writes the seed corpus under tests/fuzz/corpus/<target>/ from the repo's
fixtures (a few real lines of each Ruby version), a leakgen dump if given
(argv[1]: a dump file), hand-made broken lines and framed messages. Re-run it
to regenerate; inputs stay small (< 4 KiB) so fuzzing starts fast."""
import gzip, hashlib, os, random, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FIX = os.path.join(ROOT, "tests", "fixtures")
random.seed(7)


def put(target, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def lines_of(path, limit=None):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        return [l.rstrip(b"\n") for l in f][:limit]


def sample_lines(path, n):
    lines = lines_of(path, 20000)
    picks = lines[:3] + random.sample(lines, min(n, len(lines)))
    # Also one line of each type seen.
    seen = {}
    for l in lines:
        i = l.find(b'"type":"')
        if i >= 0:
            t = l[i + 8:l.find(b'"', i + 8)]
            if t not in seen and len(l) < 4000:
                seen[t] = l
    return [l for l in picks + list(seen.values()) if len(l) < 4000]


sources = [
    os.path.join(FIX, "rbheap-3dump", "heap1.jsonl.gz"),
    os.path.join(FIX, "heapy", "my_dump_1.json.gz"),
    os.path.join(FIX, "heap-profiler", "ruby-3.0-singleton-classes.heap.gz"),
    os.path.join(FIX, "heap-profiler", "ruby-3.2-partial-retained.heap"),
]
if len(sys.argv) > 1:
    sources.append(sys.argv[1])

real = []
for s in sources:
    real += sample_lines(s, 6)

broken = [
    b"", b" ", b"{", b"}", b"[]", b"null", b"{}", b'{"type":"ROOT"}',
    b'{"address":"0x7f", "type":"STRING", "value":"a\x00b", "memsize":40}',
    b'{"address":"0x7f", "type":"OBJECT", "method":"\xff\xfe\x00x", "file":"a.rb", "line":1}',
    b'{"address":"0x7fb1f8", "type":"STRING", "class":"0x7fb1f80b", "value":"cut mid li',
    b'{"address":"zzz", "type":"OBJECT"}',
    b'{"address":"0x", "type":"OBJECT"}',
    b'{"address":"0xffffffffffffffffff", "type":"OBJECT"}',
    b'{"address":12345, "type":"OBJECT", "references":"0x1"}',
    b'{"address":"0x10", "type":7, "references":[1,2,{"a":[]}], "memsize":"big"}',
    b'{"address":"0x10", "type":"ARRAY", "references":["0x11","0x12",], "length":2}',
    b'{"type":"ROOT", "root":"vm", "references":["0x1", "0x2", "0x3"]}',
    b'{"address":"0x104dd0180", "type":"SHAPE", "id":12, "parent_id":2, "depth":3, "shape_type":"IVAR","edge_name":"@foo", "edges":17, "memsize":568}',
    b'{"address":"0x10", "type":"HASH", "flags":{"wb_protected":true, "old":tru',
    b"[" * 200 + b"]" * 200,
    b'{"a":' * 100 + b"1" + b"}" * 100,
    b'{"address":"0x10","address":"0x20","type":"STRING","type":"HASH"}',
    b'{"address":"0x10", "type":"FLOAT", "value":nan}',
    b'{"address":"0x10", "type":"FLOAT", "value":inf, "memsize":1e400}',
    b'{"address":"0x10", "type":"CLASS", "name":"\\u0000\\ud800", "memsize":-1, "line":18446744073709551616}',
]
for l in real + broken:
    put("record_parser", l)

# Loader: flag byte (bit0 gzip, bit1 identity-only, bits 2-3 block size) + a small file.
def dump(lines):
    return b"\n".join(lines) + b"\n"

files = []
for s in sources:
    ls = lines_of(s, 40)
    files.append(dump(ls))
    files.append(dump(ls)[:-37])  # cut mid-line
files.append(dump(real[:20] + broken[8:14]))
files.append(b"")
files.append(b"\x00" * 64)
files.append(b"not json at all\n" * 4)
for i, f in enumerate(files):
    for flag in (0, 1, 2, 4, 8 | 1, 12 | 2):
        if len(f) < 16000:
            put("loader", bytes([flag]) + f)

# Gzip reader: read-size byte + a file: real gzip, two members, bad CRC, cut, plain.
small = dump(lines_of(sources[0], 30))
gz = gzip.compress(small)
bad_crc = bytearray(gz); bad_crc[-6] ^= 0xFF
bad_len = bytearray(gz); bad_len[-2] ^= 0x01
gz_inputs = [gz, gz + gzip.compress(b"second member\n"), bytes(bad_crc), bytes(bad_len),
             gz[: len(gz) // 2], gz[:10], gz[:2], b"\x1f\x8b", b"\x1f\x8b\x08\x00" + b"\x00" * 12,
             gz + b"\x00" * 16, gz + b"trailing garbage", small[:500],
             zlib.compress(small)]  # zlib, not gzip: plain bytes to the reader
for g in gz_inputs:
    for chunk in (0, 1, 2):
        put("gzip_reader", bytes([chunk]) + g)

# Frames: byte 0 = piece size for the split-invariance check.
def cl(body, extra=b""):
    return b"Content-Length: %d\r\n%s\r\n" % (len(body), extra) + body

req = b'{"jsonrpc":"2.0","id":1,"method":"listHeaps"}'
frames = [
    cl(req), req + b"\n", cl(req) + req + b"\n" + cl(req),
    cl(req, b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"),
    b"Content-Length: 1000000000000000000\r\n\r\n" + cl(req),
    b"Content-Length: 999\r\n\r\n" + b"x" * 100 + cl(req),
    b"Content-Length: abc\r\n\r\n" + cl(req),
    b"Content-Length: 10\r\nContent-Length: %d\r\n\r\n" % len(req) + req,
    b"garbage garbage\r\n" + cl(req), b"\r\n\r\n" + req + b"\n",
    cl(req)[: len(cl(req)) // 2], b"Content-Length: 5\r\n", b"Content-Len",
    b"X" * 300 + b"\n" + cl(req), b"[" + req + b"," + req + b"]\n",
    b"\n{" + b"a" * 600 + b"\n" + req + b"\n",
]
for f in frames:
    for piece in (0, 1, 5):
        put("frame_reader", bytes([piece]) + f)

# Session: byte 0 bit0 prepend initialize, bit1 NDJSON, rest piece size.
msgs = [
    b'{"jsonrpc":"2.0","id":2,"method":"echo","params":{"text":"hi","numbers":[1,2],"flag":true}}',
    b'{"jsonrpc":"2.0","id":"s","method":"park","params":{"workDoneToken":"t"}}',
    b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"s"}}',
    b'{"jsonrpc":"2.0","id":3,"method":"throws"}',
    b'{"jsonrpc":"2.0","id":4,"method":"nope"}',
    b'{"jsonrpc":"2.0","method":"heapleak/poke","params":[1]}',
    b'{"jsonrpc":"1.0","id":5,"method":"echo"}',
    b'{"jsonrpc":"2.0","id":{"x":1},"method":"echo","params":{"text":1}}',
    b'{"jsonrpc":"2.0","id":6,"method":"echo","params":[1,2]}',
    b'[]', b'[1,2]', b'[{"jsonrpc":"2.0","id":7,"method":"echo","params":{"text":"a"}},{"jsonrpc":"2.0","method":"initialized"}]',
    b'{"jsonrpc":"2.0","id":8,"method":"shutdown"}', b'{"jsonrpc":"2.0","method":"exit"}',
    b'{"jsonrpc":"2.0","id":9,"result":null}', b'not json',  # id 1e999: see regressions/session
]
for m in msgs:
    put("session", bytes([1 | 2]) + m + b"\n")
    put("session", bytes([1]) + cl(m))
put("session", bytes([1]) + b"".join(cl(m) for m in msgs))
put("session", bytes([3]) + b"\n".join(msgs) + b"\n")
put("session", bytes([0]) + cl(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}') + cl(msgs[0]))
print("corpus written:", {t: len(os.listdir(os.path.join(HERE, "corpus", t))) for t in os.listdir(os.path.join(HERE, "corpus"))})
