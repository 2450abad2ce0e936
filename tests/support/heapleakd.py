# The one test harness for heapleakd (Python 3 stdlib only): start it over
# stdio or a unix/TCP socket (always stopped at the end), a JSON-RPC peer that
# reads Content-Length or NDJSON frames with a timeout on every wait, and the
# leakgen dumps shared by a build tree. tests/daemon, tests/hardening,
# tests/client and tests/transcripts build their helpers on this module.
import atexit
import fcntl
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

SLOW = float(os.environ.get("HEAPLEAK_TEST_SLOWDOWN", "1"))  # sanitizer builds: 3-10
WAIT = 60.0 * SLOW  # seconds: the default bound on any single wait
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer",
                     "runtime error:", "ERROR: ThreadSanitizer")


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


# Directories short_temp_dir() made, removed when the test process exits.
_TEMP_DIRS = []


def short_temp_dir():
    """A fresh directory under /tmp with a short name (a unix socket path must
    fit in 107 bytes), removed with everything in it when this test process
    exits: a failure's message carries the log tail it needs.
    HEAPLEAK_KEEP_TEST_DIRS=1 keeps them, for a post-mortem."""
    path = tempfile.mkdtemp(prefix="hld-")
    _TEMP_DIRS.append(path)
    return path


@atexit.register
def _remove_temp_dirs():
    if os.environ.get("HEAPLEAK_KEEP_TEST_DIRS") == "1":
        return
    for path in _TEMP_DIRS:
        shutil.rmtree(path, ignore_errors=True)


def wait_until(predicate, timeout=WAIT, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise TestFailure(f"timed out after {timeout:.0f} s waiting for {what}")


# ---------------------------------------------------------------- framing

def frame(obj_or_bytes, framing="content-length"):
    body = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
    return body + b"\n" if framing == "ndjson" else b"Content-Length: %d\r\n\r\n" % len(body) + body


def split_frame(buf):
    """(rest, framing, body bytes) for the first whole message in buf, or None.
    Raises ValueError on a header block without Content-Length."""
    b = buf.lstrip(b"\r\n ")
    if b[:1] in (b"{", b"["):
        nl = b.find(b"\n")
        return None if nl < 0 else (b[nl + 1:], "ndjson", b[:nl])
    end = b.find(b"\r\n\r\n")
    if end < 0:
        return None
    m = re.search(rb"(?im)^\s*content-length:\s*(\d+)", b[:end])
    if not m:
        raise ValueError(f"a header block without Content-Length: {b[:200]!r}")
    length = int(m.group(1))
    if len(b) < end + 4 + length:
        return None
    return b[end + 4 + length:], "content-length", b[end + 4:end + 4 + length]


class Peer:
    """A JSON-RPC peer over a pair of file descriptors (pipe or socket)."""

    def __init__(self, read_fd, write_fd, on_dead=None, first_id=1):
        self.rfd, self.wfd = read_fd, write_fd
        self.buf = b""
        self.next_id = first_id
        self.inbox = []  # responses read while waiting for another id
        self.notes = []  # $/progress and other notifications
        self.on_dead = on_dead
        self.eof = False
        self.sock = None

    @property
    def closed(self):
        return self.eof

    def close(self):
        if self.sock is not None:
            self.sock.close()

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
        """Sends a request and returns its id."""
        if id is None:
            id, self.next_id = self.next_id, self.next_id + 1
        message = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return id

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    # --- receiving ---
    def _fill(self, deadline):
        """Reads more bytes; False on timeout, end of stream or a dead daemon."""
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
                except (ConnectionResetError, BrokenPipeError):
                    chunk = b""
                if not chunk:
                    self.eof = True
                    return False
                self.buf += chunk
                return True
            if self.on_dead and self.on_dead():
                return False

    def receive(self, timeout=WAIT):
        """The next message, or None when the daemon closed the connection."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                whole = split_frame(self.buf)
            except ValueError as e:
                raise TestFailure(f"server sent {e}")
            if whole is not None:
                self.buf = whole[0]
                return json.loads(whole[2])
            if not self._fill(deadline):
                if self.eof:
                    return None
                raise TestFailure(f"no message within {timeout:g} s")

    def read_message(self, timeout=WAIT):
        """The next message (response or notification); raises on timeout or EOF."""
        message = self.receive(timeout)
        check(message is not None, "the daemon closed the connection")
        return message

    def response(self, id=None, timeout=WAIT, notifications=None):
        """The response to `id` (or the next response); notifications are kept in
        notes (and `notifications`), other responses in inbox."""
        deadline = time.monotonic() + timeout
        for i, m in enumerate(self.inbox):
            if isinstance(m, dict) and (id is None or m.get("id") == id):
                return self.inbox.pop(i)
        while True:
            msg = self.read_message(max(0.01, deadline - time.monotonic()))
            if isinstance(msg, dict) and "method" in msg and "id" not in msg:
                self.notes.append(msg)
                if notifications is not None:
                    notifications.append(msg)
                continue
            if id is None or (isinstance(msg, dict) and msg.get("id") == id):
                return msg
            self.inbox.append(msg)

    def call(self, method, params=None, timeout=WAIT):
        return self.response(self.request(method, params), timeout)

    def result(self, method, params=None, timeout=WAIT):
        message = self.call(method, params, timeout)
        check("result" in message, f"{method}: expected a result, got {message}")
        return message["result"]

    def initialize(self, options=None, name="heapleak-tests"):
        params = {"processId": os.getpid(), "clientInfo": {"name": name}}
        if options is not None:
            params["initializationOptions"] = options
        return self.result("initialize", params)


def open_socket(address):
    """A connected non-blocking socket: address is a unix socket path or (host, port)."""
    s = socket.socket(socket.AF_UNIX if isinstance(address, str) else socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(WAIT)
    s.connect(address)
    s.setblocking(False)
    return s


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- the daemon

class Daemon:
    """heapleakd as a child; a context manager that stops it on exit. With
    stdio=True its stdin/stdout are pipes (see stdio_peer()); the log is its
    stderr. Peers it makes are of class self.Peer."""
    Peer = Peer

    def __init__(self, argv, stdio=False, cwd=None, log_path=None):
        self.dir = os.path.dirname(log_path) if log_path else short_temp_dir()
        self.log_path = log_path or os.path.join(self.dir, "heapleakd.log")
        self.log = open(self.log_path, "wb")
        self.sockets = []
        self.socket_path = None
        pipe = subprocess.PIPE if stdio else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(argv, stdin=pipe, stdout=pipe, stderr=self.log, cwd=cwd)
        except OSError:
            self.log.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        self.kill()

    def stdio_peer(self):
        """A peer on the stdio pipes (non-blocking, so a big write cannot deadlock)."""
        for f in (self.proc.stdout, self.proc.stdin):
            fl = fcntl.fcntl(f.fileno(), fcntl.F_GETFL)
            fcntl.fcntl(f.fileno(), fcntl.F_SETFL, fl | os.O_NONBLOCK)
        return self.Peer(self.proc.stdout.fileno(), self.proc.stdin.fileno(), lambda: not self.alive())

    def alive(self):
        return self.proc.poll() is None

    def signal(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)

    def stderr(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def check_alive(self, what=""):
        check(self.alive(), f"heapleakd died {what} (exit {self.proc.returncode}); log tail:\n{self.stderr()[-3000:]}")

    def wait(self, timeout=WAIT):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TestFailure(f"heapleakd did not exit within {timeout:.0f} s; log: {self.stderr()[-500:]}")

    def stop(self, grace=20 * SLOW):
        """SIGTERM first (a clean exit lets LeakSanitizer report), SIGKILL after
        `grace` s (at once when 0); closes our sockets and the log. Returns the
        exit code; raises when SIGTERM was ignored."""
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass
        hung = False
        if self.proc.poll() is None:
            if grace:
                self.proc.terminate()
            try:
                self.proc.wait(timeout=grace or 0.001)
            except subprocess.TimeoutExpired:
                hung = bool(grace)
                self.proc.kill()
                self.proc.wait(timeout=WAIT)
        if not self.log.closed:
            self.log.close()
        check(not hung, f"heapleakd ignored SIGTERM for {grace:.0f} s")
        return self.proc.returncode

    def kill(self):
        self.stop(grace=0)

    def check_sanitizers(self):
        text = self.stderr()
        for marker in SANITIZER_MARKERS:
            i = text.find(marker)
            check(i < 0, f"sanitizer report in the daemon log {self.log_path}:\n{text[max(0, i - 200):i + 4000]}")

    def wait_for(self, address, timeout=WAIT):
        """Until a connection to address (unix path or (host, port)) is accepted:
        a unix socket file appears at bind(), a moment before listen()."""
        def ready():
            self.check_alive("while starting")
            family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(1)
                return s.connect_ex(address) == 0
        wait_until(ready, timeout, f"heapleakd to accept on {address}")

    def connect(self, address=None):
        s = open_socket(address or self.socket_path)
        self.sockets.append(s)
        peer = self.Peer(s.fileno(), s.fileno(), lambda: not self.alive())
        peer.sock = s
        return peer


# ---------------------------------------------------------------- processes

def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of ours counts as gone
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def process_running(pid):
    """Alive and not a zombie, whoever its parent is: an orphan's reaper
    (init here) may reap it late, or never in a container."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return False


# ---------------------------------------------------------------- dumps

def once(path, build):
    """Makes `path` once per build tree: build(tmp) then rename, under a file
    lock so parallel ctest runs never build it twice."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(path):
            tmp = path + ".tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            build(tmp)
            os.rename(tmp, path)
    return path


def leakgen(work, gen, scenario="class_cache", size="small"):
    """Directory with leakgen's A.json, B.json, C.json and truth.json."""
    def build(tmp):
        subprocess.run(["nice", "ruby", gen, scenario, size, tmp], check=True, stdout=subprocess.DEVNULL,
                       timeout=600)
    return once(os.path.join(work, f"{scenario}-{size}"), build)


def concatenated(source, out, copies):
    """`copies` copies of source in one file: a big dump for cancel/progress tests."""
    def build(tmp):
        with open(tmp, "wb") as dst:
            for _ in range(copies):
                with open(source, "rb") as src:
                    shutil.copyfileobj(src, dst, 1 << 20)
    return once(out, build)
