# Helpers for the socket tests: start heapleakd as a child (always killed at
# the end), and a small JSON-RPC client over a unix or TCP socket speaking
# Content-Length frames, with a timeout on every wait. Python 3 stdlib only.
import json
import os
import select
import signal
import socket
import subprocess
import time

WAIT = 30.0  # seconds: the bound on any single wait


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def wait_until(predicate, timeout=WAIT, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise TestFailure(f"timed out after {timeout:.0f} s waiting for {what}")


class Daemon:
    """One heapleakd child. Use as a context manager: it is killed on exit."""

    def __init__(self, binary, args, workdir):
        self.log_path = os.path.join(workdir, f"heapleakd-{time.monotonic_ns()}.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([binary] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.log, cwd=workdir)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)
        self.log.close()

    def wait(self, timeout=WAIT):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TestFailure(f"heapleakd did not exit within {timeout:.0f} s; log: {self.stderr()[-500:]}")

    def alive(self):
        return self.proc.poll() is None

    def signal(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)

    def stderr(self):
        self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def wait_for_socket(self, path, timeout=WAIT):
        # The file appears at bind(), a moment before listen(): wait until a
        # connection is accepted, not just for the file.
        def ready():
            if not self.alive():
                raise TestFailure(f"heapleakd exited with {self.proc.returncode}: {self.stderr()[-500:]}")
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.settimeout(1)
                s.connect(path)
                return True
            except OSError:
                return False
            finally:
                s.close()
        wait_until(ready, timeout, f"socket {path}")

    def wait_for_port(self, port, timeout=WAIT):
        def ready():
            if not self.alive():
                raise TestFailure(f"heapleakd exited with {self.proc.returncode}: {self.stderr()[-500:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return True
            except OSError:
                return False
        wait_until(ready, timeout, f"tcp port {port}")


class Client:
    """A JSON-RPC client on one connection (Content-Length framing)."""

    def __init__(self, address):
        if isinstance(address, str):
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        else:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.settimeout(WAIT)
        self.sock.connect(address)
        self.buf = b""
        self.next_id = 1
        self.closed = False

    def close(self):
        self.sock.close()

    def send(self, message):
        body = json.dumps(message).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method, params=None, id=None):
        """Sends a request and returns its id (replies are read with receive/reply)."""
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

    def receive(self, timeout=WAIT):
        """The next message, or None when the daemon closed the connection."""
        deadline = time.monotonic() + timeout
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                header = self.buf[:end].decode()
                length = int(header.split(":", 1)[1])
                if len(self.buf) >= end + 4 + length:
                    body = self.buf[end + 4:end + 4 + length]
                    self.buf = self.buf[end + 4 + length:]
                    return json.loads(body)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TestFailure(f"no message within {timeout:.0f} s")
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready:
                continue
            try:
                chunk = self.sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                chunk = b""
            if not chunk:
                self.closed = True
                return None
            self.buf += chunk

    def reply(self, id, timeout=WAIT, notifications=None):
        """Reads until the response to `id`; notifications go to the given list."""
        while True:
            message = self.receive(timeout)
            if message is None:
                raise TestFailure(f"connection closed while waiting for the reply to {id}")
            if "id" in message and "method" not in message and message["id"] == id:
                return message
            if notifications is not None:
                notifications.append(message)

    def call(self, method, params=None, timeout=WAIT):
        return self.reply(self.request(method, params), timeout)

    def result(self, method, params=None, timeout=WAIT):
        message = self.call(method, params, timeout)
        check("result" in message, f"{method}: expected a result, got {message}")
        return message["result"]

    def initialize(self, options=None):
        params = {"processId": os.getpid(), "clientInfo": {"name": "socket_test"}}
        if options is not None:
            params["initializationOptions"] = options
        return self.result("initialize", params)


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
