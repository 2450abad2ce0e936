# The socket tests' names for the shared harness (tests/support/heapleakd.py):
# heapleakd as a child in a work dir (killed at the end) and a JSON-RPC client
# on a unix or TCP socket, with a timeout on every wait.
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import heapleakd  # noqa: E402
from heapleakd import TestFailure, check, free_tcp_port, wait_until  # noqa: E402,F401

WAIT = heapleakd.WAIT


class Daemon(heapleakd.Daemon):
    """One heapleakd child with cwd and log in workdir; killed on exit."""

    def __init__(self, binary, args, workdir):
        super().__init__([binary] + args, cwd=workdir,
                         log_path=os.path.join(workdir, f"heapleakd-{time.monotonic_ns()}.log"))

    def wait_for_socket(self, path, timeout=WAIT):
        self.wait_for(path, timeout)

    def wait_for_port(self, port, timeout=WAIT):
        self.wait_for(("127.0.0.1", port), timeout)


class Client(heapleakd.Peer):
    """A JSON-RPC client on one connection (Content-Length framing)."""

    def __init__(self, address):
        sock = heapleakd.open_socket(address)
        super().__init__(sock.fileno(), sock.fileno())
        self.sock = sock

    def reply(self, id, timeout=WAIT, notifications=None):
        """Reads until the response to `id`; notifications go to the given list."""
        try:
            return self.response(id, timeout, notifications)
        except TestFailure:
            check(not self.closed, f"connection closed while waiting for the reply to {id}")
            raise

    def initialize(self, options=None):
        return super().initialize(options, "socket_test")
