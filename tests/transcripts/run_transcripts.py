#!/usr/bin/env python3
# Replays protocol transcripts (tests/transcripts/*.test) against the real
# heapleakd: starts the daemon per file, frames and sends its requests, reads
# its replies with a timeout and matches them in order against JSON patterns.
# Prints one line per file and "N passed, N failed"; exits 1 on any failure.
# The file format is described in tests/transcripts/README.md. Stdlib only.
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import queue

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "support"), os.path.join(HERE, "..", "daemon")]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import dumps  # noqa: E402  (shared generated dumps, tests/daemon/dumps.py)
import heapleakd  # noqa: E402  (the test harness, tests/support/heapleakd.py)

DEFAULT_TIMEOUT = 30.0 * heapleakd.SLOW  # TIMEOUT lines are scaled the same way


class Failure(Exception):
    pass


# ---------------------------------------------------------------- matching

def match(expected, actual, path, captures):
    """Raises Failure unless `actual` matches the pattern `expected`."""
    if isinstance(expected, str) and expected.startswith("{{") and expected.endswith("}}"):
        return match_special(expected[2:-2], actual, path, captures)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            raise Failure(f"{path}: expected an object, got {short(actual)}")
        for key, want in expected.items():
            if want == "{{absent}}":
                if key in actual:
                    raise Failure(f"{path}.{key}: expected absent, got {short(actual[key])}")
                continue
            if key not in actual:
                raise Failure(f"{path}: missing key {key!r} in {short(actual)}")
            match(want, actual[key], f"{path}.{key}", captures)
        return
    if isinstance(expected, list):
        if not isinstance(actual, list):
            raise Failure(f"{path}: expected an array, got {short(actual)}")
        prefix = bool(expected) and expected[-1] == "..."
        items = expected[:-1] if prefix else expected
        if (prefix and len(actual) < len(items)) or (not prefix and len(actual) != len(items)):
            raise Failure(f"{path}: expected {len(items)}{'+' if prefix else ''} items, got {len(actual)}: {short(actual)}")
        for k, want in enumerate(items):
            match(want, actual[k], f"{path}[{k}]", captures)
        return
    if type(expected) is bool or type(actual) is bool or expected is None or actual is None:
        ok = expected is actual or (expected == actual and type(expected) is type(actual))
    else:
        ok = expected == actual and isinstance(actual, type(expected)) or (
            isinstance(expected, (int, float)) and isinstance(actual, (int, float)) and expected == actual)
    if not ok:
        raise Failure(f"{path}: expected {short(expected)}, got {short(actual)}")


def match_special(spec, actual, path, captures):
    kinds = {"any": lambda v: True,
             "string": lambda v: isinstance(v, str),
             "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
             "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
             "address": lambda v: isinstance(v, str) and re.fullmatch(r"0x[0-9a-f]+", v) is not None,
             "nonempty": lambda v: isinstance(v, (list, str, dict)) and len(v) > 0}
    if spec in kinds:
        if not kinds[spec](actual):
            raise Failure(f"{path}: expected {spec}, got {short(actual)}")
        return
    if spec.startswith("="):  # capture
        captures[spec[1:]] = actual
        return
    if spec.startswith("has:"):  # an array holding (at least) these strings
        wanted = [w.strip() for w in spec[4:].split(",")]
        missing = [w for w in wanted if not isinstance(actual, list) or w not in actual]
        if missing:
            raise Failure(f"{path}: expected an array holding {missing}, got {short(actual)}")
        return
    if spec.startswith("re:"):
        if not isinstance(actual, str) or re.search(spec[3:], actual, re.S) is None:
            raise Failure(f"{path}: expected a string matching /{spec[3:]}/, got {short(actual)}")
        return
    m = re.fullmatch(r"(>=|<=|>|<)\s*(-?[0-9.]+)", spec)
    if m:
        bound = float(m.group(2))
        ops = {">=": lambda v: v >= bound, "<=": lambda v: v <= bound, ">": lambda v: v > bound, "<": lambda v: v < bound}
        if not isinstance(actual, (int, float)) or isinstance(actual, bool) or not ops[m.group(1)](actual):
            raise Failure(f"{path}: expected a number {spec}, got {short(actual)}")
        return
    m = re.fullmatch(r"len\s*(==|>=|<=)\s*([0-9]+)", spec)
    if m:
        n, want = (len(actual) if isinstance(actual, (list, str, dict)) else -1), int(m.group(2))
        ok = {"==": n == want, ">=": n >= want, "<=": n <= want}[m.group(1)]
        if not ok:
            raise Failure(f"{path}: expected length {m.group(1)} {want}, got {short(actual)}")
        return
    raise Failure(f"{path}: unknown pattern {{{{{spec}}}}}")


def short(value, limit=300):
    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit] + "..."


# ---------------------------------------------------------------- wire

class Reader(threading.Thread):
    """Splits the daemon's stdout into messages: (framing, parsed JSON or an error string)."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.messages = queue.Queue()

    def run(self):
        buf = b""
        while True:
            chunk = self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536)
            if not chunk:
                break
            buf += chunk
            while True:
                buf, item = self.split(buf)
                if item is None:
                    break
                self.messages.put(item)
        if buf.strip():
            self.messages.put(("junk", f"trailing bytes on stdout: {buf[:200]!r}"))
        self.messages.put(None)  # end of output

    @staticmethod
    def split(buf):
        try:
            whole = heapleakd.split_frame(buf)
        except ValueError:
            return b"", ("junk", f"stdout is not a frame: {buf.lstrip()[:200]!r}")
        if whole is None:
            return buf, None
        rest, framing, body = whole
        return rest, (framing, Reader.parse(body))

    @staticmethod
    def parse(body):
        try:
            return json.loads(body)
        except ValueError:
            return f"not JSON: {body[:200]!r}"


# ---------------------------------------------------------------- transcripts

class Transcript:
    def __init__(self, path, args):
        self.path = path
        self.args = args
        self.captures = {}
        self.tmp = tempfile.mkdtemp(prefix="heapleak-transcript-")
        self.proc = None
        self.reader = None
        self.peeked = None
        self.done = False          # the daemon's stdout ended
        self.framing = "content-length"
        self.timeout = DEFAULT_TIMEOUT
        self.progress = {}         # token -> (last percentage, ended)
        self.stderr_path = os.path.join(self.tmp, "stderr.txt")

    # Placeholders: %S test dir, %T temp dir, %F fixtures, %SMALL / %BIG generated
    # dumps, ${name} captured values (strings unquoted, others as JSON).
    def expand(self, text):
        def placeholder(m):
            key = m.group(1)
            if key == "SMALL":
                return dumps.small_dump(self.args.work, self.args.gen)
            if key == "BIG":
                return dumps.big_dump(self.args.work, self.args.gen)
            return {"S": os.path.dirname(os.path.abspath(self.path)), "T": self.tmp,
                    "F": os.path.abspath(self.args.fixtures)}[key]
        text = re.sub(r"%(SMALL|BIG|S|T|F)\b", placeholder, text)

        def capture(m):
            value = self.captures.get(m.group(1))
            if value is None and m.group(1) not in self.captures:
                raise Failure(f"${{{m.group(1)}}} was never captured")
            return value if isinstance(value, str) else json.dumps(value)
        return re.sub(r"\$\{(\w+)\}", capture, text)

    def start(self, extra):
        argv = [self.args.daemon] + (shlex.split(extra) if extra else ["--stdio", "--sync"])
        # The daemon runs in %T, so relative paths in a transcript name files there.
        self.daemon = heapleakd.Daemon(argv, stdio=True, cwd=self.tmp, log_path=self.stderr_path)
        self.proc = self.daemon.proc
        self.reader = Reader(self.proc.stdout)
        self.reader.start()

    def send(self, data):
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise Failure("the daemon stopped reading (broken pipe)")

    def next_message(self, timeout):
        if self.peeked is not None:
            item, self.peeked = self.peeked, None
            return item
        if self.done:
            return None
        try:
            item = self.reader.messages.get(timeout=timeout)
        except queue.Empty:
            raise Failure(f"no message within {timeout:.0f} s")
        if item is None:
            self.done = True
            return None
        if item[0] == "junk" or isinstance(item[1], str):
            raise Failure(item[1])
        self.check_progress(item[1])
        return item

    # Every $/progress: percentages never fall, nothing after `end` for a token.
    def check_progress(self, message):
        if not isinstance(message, dict) or message.get("method") != "$/progress":
            return
        params = message.get("params", {})
        token = json.dumps(params.get("token"))
        value = params.get("value", {})
        last, ended = self.progress.get(token, (0, False))
        if ended:
            raise Failure(f"$/progress for {token} after its end: {short(message)}")
        pct = value.get("percentage", last)
        if pct < last:
            raise Failure(f"$/progress percentage fell from {last} to {pct}")
        self.progress[token] = (pct, value.get("kind") == "end")

    def expect(self, pattern_text, framing, optional_repeat, lineno):
        pattern = json.loads(self.expand(pattern_text))
        while True:
            try:
                item = self.next_message(self.timeout)
            except Failure as e:
                raise Failure(f"line {lineno}: {e}; expected {short(pattern)}")
            if item is None:
                if optional_repeat:
                    return
                raise Failure(f"line {lineno}: the daemon's output ended; expected {short(pattern)}")
            got_framing, message = item
            try:
                match(pattern, message, "$", self.captures)
                if framing and got_framing != framing:
                    raise Failure(f"$: framed as {got_framing}, expected {framing}")
            except Failure as e:
                if optional_repeat:
                    self.peeked = item
                    return
                raise Failure(f"line {lineno}: {e}\n      got: {short(message, 600)}")
            if not optional_repeat:
                return

    def wait_exit(self, code, lineno):
        try:
            rc = self.proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise Failure(f"line {lineno}: the daemon did not exit within {self.timeout:.0f} s")
        if code is not None and rc != code:
            raise Failure(f"line {lineno}: exit code {rc}, expected {code}")

    def run(self):
        steps = parse_steps(self.path)
        extra_args = None
        for lineno, op, arg in steps:
            if op == "ARGS":
                extra_args = self.expand(arg)
        for lineno, op, arg in steps:
            if op == "SH":
                subprocess.run(self.expand(arg), shell=True, check=True, timeout=120)
        # Expand generated dumps before the daemon starts, so generation time
        # never counts against a reply's timeout.
        for lineno, op, arg in steps:
            if op in ("-->", "RAW"):
                self.expand(arg)
        self.start(extra_args)
        try:
            for lineno, op, arg in steps:
                self.step(lineno, op, arg)
            self.finish()
        finally:
            self.daemon.kill()

    def step(self, lineno, op, arg):
        if op in ("ARGS", "SH", "XFAIL"):
            return
        if op == "FRAMING":
            self.framing = arg.strip()
        elif op == "TIMEOUT":
            self.timeout = float(arg) * heapleakd.SLOW
        elif op == "-->":
            self.send(heapleakd.frame(json.loads(self.expand(arg)), self.framing))
        elif op == "RAW":
            import ast
            self.send(ast.literal_eval(self.expand(arg)).encode())
        elif op.startswith("<--"):
            framing = {"cl": "content-length", "nd": "ndjson"}.get(op.lstrip("<-*"))
            self.expect(arg, framing, op.startswith("<--*"), lineno)
        elif op == "SLEEP":
            time.sleep(float(arg))
        elif op == "RUN":
            # A shell command at this point of the conversation (a dump rewritten in place).
            subprocess.run(self.expand(arg), shell=True, check=True, timeout=120, cwd=self.tmp)
        elif op == "CLOSE":
            self.proc.stdin.close()
        elif op == "SIGNAL":
            self.proc.send_signal(int(arg))
        elif op == "EXIT":
            self.wait_exit(None if arg.strip() == "any" else int(arg), lineno)
        elif op == "NOTHING":
            # No message arrives within the given seconds.
            item = self.next_message(float(arg or 1)) if self._pending(float(arg or 1)) else None
            if item is not None:
                raise Failure(f"line {lineno}: expected no message, got {short(item[1])}")
        elif op == "STDERR":
            with open(self.stderr_path, errors="replace") as f:
                text = f.read()
            if re.search(self.expand(arg), text) is None:
                raise Failure(f"line {lineno}: stderr does not match /{arg}/; stderr: {text[-500:]!r}")
        else:
            raise Failure(f"line {lineno}: unknown directive {op}")

    def _pending(self, seconds):
        if self.peeked is not None:
            return True
        deadline = time.time() + seconds
        while time.time() < deadline:
            if not self.reader.messages.empty():
                return True
            if self.done:
                return False
            time.sleep(0.02)
        return not self.reader.messages.empty()

    # After the last step: close stdin, wait for the daemon, and refuse any reply
    # the transcript did not expect.
    def finish(self):
        if self.proc.poll() is None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            self.proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise Failure("the daemon did not exit after its input closed")
        self.reader.join(timeout=5)
        item = self.next_message(1)
        if item is not None:
            raise Failure(f"unexpected message at the end: {short(item[1], 600)}")

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def parse_steps(path):
    """Directives one per line; indented lines continue the previous one; '#' comments."""
    steps = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line[0] in " \t" and steps:
                n, op, arg = steps[-1]
                steps[-1] = (n, op, arg + " " + line.strip())
                continue
            m = re.match(r"(<--\*?(?:cl|nd)?|-->)\s*(.*)$", line)
            if m:
                steps.append((lineno, m.group(1), m.group(2)))
                continue
            m = re.match(r"([A-Z]+):?\s*(.*)$", line)
            if not m:
                raise Failure(f"{path}:{lineno}: cannot parse {line!r}")
            steps.append((lineno, m.group(1), m.group(2)))
    return steps


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--daemon", required=True, help="path to heapleakd")
    p.add_argument("--fixtures", required=True, help="tests/fixtures")
    p.add_argument("--gen", required=True, help="tests/gen/leakgen.rb")
    p.add_argument("--work", required=True, help="scratch dir for generated dumps")
    p.add_argument("tests", nargs="+", help=".test files or directories")
    args = p.parse_args()
    args.daemon, args.work = os.path.abspath(args.daemon), os.path.abspath(args.work)
    files = []
    for t in args.tests:
        files += sorted(os.path.join(t, f) for f in os.listdir(t) if f.endswith(".test")) if os.path.isdir(t) else [t]
    passed = failed = xfailed = 0
    for path in files:
        t = Transcript(path, args)
        name = os.path.basename(path)
        # XFAIL: reason -- a known daemon bug; the transcript must fail until it is fixed.
        try:
            xfail = next((arg for _, op, arg in parse_steps(path) if op == "XFAIL"), None)
        except Failure as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
            continue
        started = time.time()
        try:
            t.run()
            if xfail is not None:
                failed += 1
                print(f"XPASS {name}: passes now; remove its XFAIL line ({xfail})", flush=True)
            else:
                passed += 1
                print(f"PASS {name} ({time.time() - started:.1f} s)", flush=True)
            t.cleanup()
        except (Failure, OSError, ValueError, subprocess.SubprocessError) as e:
            if xfail is not None:
                xfailed += 1
                print(f"XFAIL {name}: known daemon bug: {xfail}\n      ({e})", flush=True)
                t.cleanup()
                continue
            failed += 1
            print(f"FAIL {name}: {e}\n      daemon stderr: {t.stderr_path}", flush=True)
    print(f"{passed} passed, {failed} failed" + (f", {xfailed} expected failures (known daemon bugs)" if xfailed else ""))
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
