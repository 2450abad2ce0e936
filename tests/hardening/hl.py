# Helpers for the hardening tests (Python 3 stdlib only): start heapleakd over
# stdio or a private unix socket (always killed at the end), a JSON-RPC peer
# with Content-Length framing and a timeout on every wait, raw byte access for
# the bad-wire tests, and shared generated dumps.
import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import tempfile
import time

WAIT = 60.0  # seconds: the bound on any single wait
SLOW = float(os.environ.get("HEAPLEAK_TEST_SLOWDOWN", "1"))  # sanitizer builds: 3-10
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer",
                     "runtime error:", "ERROR: ThreadSanitizer")


class TestFailure(Exception):
    pass


class Skip(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def frame(obj_or_bytes):
    body = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Peer:
    """A JSON-RPC peer over a pair of file descriptors (pipe or socket)."""

    def __init__(self, read_fd, write_fd, on_dead=None):
        self.rfd, self.wfd = read_fd, write_fd
        self.buf = b""
        self.next_id = 1000
        self.inbox = []  # parsed messages not yet taken
        self.notes = []  # $/progress and other notifications
        self.on_dead = on_dead
        self.eof = False

    # --- sending ---
    def send_raw(self, data):
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.wfd, view)
            except BlockingIOError:
                select.select([], [self.wfd], [], 1.0)
                continue
            view = view[n:]

    def send(self, message):
        self.send_raw(frame(message))

    def request(self, method, params=None, id=None):
        if id is None:
            self.next_id += 1
            id = self.next_id
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    # --- receiving ---
    def _fill(self, deadline):
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([self.rfd], [], [], min(left, 0.5))
            if r:
                try:
                    chunk = os.read(self.rfd, 1 << 20)
                except (BlockingIOError, InterruptedError):
                    continue
                except ConnectionResetError:
                    chunk = b""
                if not chunk:
                    self.eof = True
                    return False
                self.buf += chunk
                return True
            if self.on_dead and self.on_dead():
                return False

    def _parse_one(self):
        """One message from the buffer (either framing), or None."""
        b = self.buf.lstrip(b"\r\n ")
        if not b:
            return None
        if b[:1] in (b"{", b"["):
            nl = b.find(b"\n")
            if nl < 0:
                return None
            self.buf = b[nl + 1:]
            return json.loads(b[:nl])
        end = b.find(b"\r\n\r\n")
        if end < 0:
            return None
        length = None
        for line in b[:end].split(b"\r\n"):
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip())
        check(length is not None, f"server sent a header block without Content-Length: {b[:200]!r}")
        if len(b) < end + 4 + length:
            return None
        body = b[end + 4:end + 4 + length]
        self.buf = b[end + 4 + length:]
        return json.loads(body)

    def read_message(self, timeout=WAIT):
        """The next message (response or notification), or raise on timeout/EOF."""
        deadline = time.monotonic() + timeout
        while True:
            msg = self._parse_one()
            if msg is not None:
                return msg
            if not self._fill(deadline):
                if self.eof:
                    raise TestFailure("the daemon closed the connection")
                raise TestFailure(f"no message within {timeout:.0f} s")

    def response(self, id=None, timeout=WAIT):
        """The response to `id` (or the next response); notifications are kept in notes."""
        deadline = time.monotonic() + timeout
        for i, m in enumerate(self.inbox):
            if isinstance(m, dict) and (id is None or m.get("id") == id):
                return self.inbox.pop(i)
        while True:
            msg = self.read_message(max(0.01, deadline - time.monotonic()))
            if isinstance(msg, dict) and "method" in msg and "id" not in msg:
                self.notes.append(msg)
                continue
            if id is None or (isinstance(msg, dict) and msg.get("id") == id):
                return msg
            self.inbox.append(msg)

    def call(self, method, params=None, timeout=WAIT):
        return self.response(self.request(method, params), timeout)

    def initialize(self, options=None):
        params = {"clientInfo": {"name": "hardening"}}
        if options is not None:
            params["initializationOptions"] = options
        r = self.call("initialize", params)
        check("result" in r, f"initialize failed: {r}")
        self.notify("initialized", {})
        return r

    def list_heaps(self, timeout=WAIT):
        r = self.call("listHeaps", {}, timeout)
        check("result" in r and isinstance(r["result"].get("heaps"), list), f"listHeaps failed: {r}")
        return r["result"]["heaps"]


class Daemon:
    """heapleakd as a child, killed on exit. mode: 'stdio' or 'unix'."""

    def __init__(self, ctx, mode="stdio", args=(), log="info"):
        self.ctx = ctx
        # Under /tmp, not the build tree: a unix socket path must fit in 107 bytes.
        self.dir = tempfile.mkdtemp(prefix="hld-")
        self.log_path = os.path.join(self.dir, "heapleakd.log")
        self.log = open(self.log_path, "wb")
        argv = [ctx.daemon, f"--log={log}"] + list(args)
        self.socket_path = None
        if mode == "stdio":
            argv.insert(1, "--stdio")
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
            fl = fcntl.fcntl(self.proc.stdout.fileno(), fcntl.F_GETFL)
            fcntl.fcntl(self.proc.stdout.fileno(), fcntl.F_SETFL, fl | os.O_NONBLOCK)
            self.peer = Peer(self.proc.stdout.fileno(), self.proc.stdin.fileno(), on_dead=lambda: not self.alive())
        else:
            self.socket_path = os.path.join(self.dir, "s", "heapleakd.sock")
            argv[1:1] = ["--listen", "unix:" + self.socket_path]
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
            self.wait_for_socket()
        self.sockets = []

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is not None:
            try:
                self.kill()
            except TestFailure as e:  # keep the first failure; mention the second
                print(f"(also: {e})")
            return
        self.kill()
        self.check_sanitizers()

    def alive(self):
        return self.proc.poll() is None

    def kill(self):
        """SIGTERM first (a clean exit lets LeakSanitizer report), SIGKILL if it hangs."""
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20 * SLOW)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=WAIT)
                if not self.log.closed:
                    self.log.close()
                raise TestFailure("heapleakd ignored SIGTERM for 20 s")
        if not self.log.closed:
            self.log.close()

    def check_sanitizers(self):
        text = self.stderr()
        for marker in SANITIZER_MARKERS:
            i = text.find(marker)
            check(i < 0, f"sanitizer report in the daemon log {self.log_path}:\n{text[max(0, i - 200):i + 4000]}")

    def stderr(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def wait(self, timeout=WAIT):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TestFailure(f"heapleakd did not exit within {timeout:.0f} s")

    def check_alive(self, what=""):
        check(self.alive(), f"heapleakd died {what} (exit {self.proc.returncode}); log tail:\n{self.stderr()[-3000:]}")

    def wait_for_socket(self):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            self.check_alive("while starting")
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.socket_path)
                s.close()
                return
            except OSError:
                s.close()
                time.sleep(0.05)
        raise TestFailure("the socket never accepted a connection")

    def raw_socket(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(WAIT)
        s.connect(self.socket_path)
        self.sockets.append(s)
        return s

    def connect(self):
        s = self.raw_socket()
        s.setblocking(False)
        p = Peer(s.fileno(), s.fileno(), on_dead=lambda: not self.alive())
        p.sock = s
        return p


def error_of(response):
    check(isinstance(response, dict), f"not a response object: {response!r}")
    return response.get("error")


def expect_error(response, code, reason=None, what=""):
    err = error_of(response)
    check(err is not None, f"{what}: expected error {code}, got result {str(response)[:300]}")
    check(err.get("code") == code, f"{what}: expected error {code}, got {err}")
    check(isinstance(err.get("message"), str) and err["message"], f"{what}: error without a message: {err}")
    if reason is not None:
        got = (err.get("data") or {}).get("reason")
        allowed = reason if isinstance(reason, (list, tuple, set)) else [reason]
        check(got in allowed, f"{what}: expected data.reason in {allowed}, got {err}")
    return err


def gen_dumps(ctx, scenario="class_cache", size="small"):
    """leakgen output (A.json, B.json, C.json, truth.json), generated once per build tree."""
    out = os.path.join(ctx.shared, f"{scenario}-{size}")
    done = os.path.join(out, ".done")
    lock_path = out + ".lock"
    os.makedirs(ctx.shared, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(done):
            subprocess.run(["ruby", ctx.gen, scenario, size, out], check=True, stdout=subprocess.DEVNULL,
                           timeout=600)
            open(done, "w").close()
    return out
