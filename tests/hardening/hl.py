# The hardening tests' names for the shared harness (tests/support/heapleakd.py):
# heapleakd over stdio or a private unix socket (stopped with SIGTERM and its
# log checked for sanitizer reports at the end), JSON-RPC peers with raw byte
# access for the bad-wire tests, error checks and the shared generated dumps.
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import heapleakd  # noqa: E402
from heapleakd import SANITIZER_MARKERS, SLOW, TestFailure, check, frame, process_running, short_temp_dir  # noqa: E402,F401

WAIT = 60.0  # seconds, unscaled: the tests multiply by SLOW where a wait is long


class Skip(Exception):
    pass


class Peer(heapleakd.Peer):
    """A JSON-RPC peer over a pair of file descriptors (pipe or socket)."""

    def __init__(self, read_fd, write_fd, on_dead=None):
        super().__init__(read_fd, write_fd, on_dead, first_id=1001)

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


class Daemon(heapleakd.Daemon):
    """heapleakd as a child, stopped on exit. mode: 'stdio' or 'unix'."""
    Peer = Peer

    def __init__(self, ctx, mode="stdio", args=(), log="info"):
        self.ctx = ctx
        base = heapleakd.short_temp_dir()
        sock = os.path.join(base, "s", "heapleakd.sock")
        listen = ["--stdio"] if mode == "stdio" else ["--listen", "unix:" + sock]
        super().__init__([ctx.daemon] + listen + [f"--log={log}"] + list(args), stdio=mode == "stdio",
                         log_path=os.path.join(base, "heapleakd.log"))
        if mode == "stdio":
            self.peer = self.stdio_peer()
        else:
            self.socket_path = sock
            self.wait_for_socket()

    def __exit__(self, exc_type, *exc):
        if exc_type is not None:
            try:
                self.kill()
            except TestFailure as e:  # keep the first failure; mention the second
                print(f"(also: {e})")
            return
        self.kill()
        self.check_sanitizers()

    def kill(self):
        """SIGTERM first (a clean exit lets LeakSanitizer report), SIGKILL if it hangs."""
        self.stop()

    def wait_for_socket(self):
        self.wait_for(self.socket_path)

    def raw_socket(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(WAIT)
        s.connect(self.socket_path)
        self.sockets.append(s)
        return s


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
    return heapleakd.leakgen(ctx.shared, ctx.gen, scenario, size)
