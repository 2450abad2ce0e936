"""Shared setup of the heapleak-client tests: arguments, a private socket in a
temp dir, running the client with bounded waits, and killing every daemon a
test started (by pid) when the test ends, pass or fail. The client starts
heapleakd itself; process checks come from tests/support/heapleakd.py."""
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time  # noqa: F401  (the tests use it through "from client_helper import *")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from heapleakd import pid_alive as alive, wait_gone  # noqa: E402,F401

CLIENT, HEAPLEAKD, SOURCE, WORK = [os.path.abspath(a) for a in sys.argv[1:5]]
FIXTURES = os.path.join(SOURCE, "tests", "fixtures")
H1, H2, H3 = [os.path.join(FIXTURES, "rbheap-3dump", "heap%d.jsonl.gz" % k) for k in (1, 2, 3)]
with open(os.path.join(FIXTURES, "rbheap-3dump", "leaked-strings.txt")) as f:
    LEAKED = [line.strip() for line in f if line.startswith("0x")]
ARRAY = "0x7f9f030a37d8"  # Leaky.@leak in heap2: holds every leaked string
LEAKY = "0x7f9f030a3990"  # the class Leaky, referenced by the machine_context root
# ... and by a constant of Object, which the vm root reaches through the default
# ThreadGroup and its class: root paths take the machine stack last (issue 41)
ROOT_PATH = ["0x7f9f02877910", "0x7f9f02877af0", "0x7f9f028dd738", LEAKY]  # ThreadGroup, its class, Object, Leaky
ROOT_NAMES = ["ROOT vm", "ThreadGroup", "ThreadGroup", "Object", "Leaky"]

# Exit codes: the table both CLIs share (docs/exit-codes.md, --help).
OK, NO_ANSWER, USAGE, FILE_NOT_FOUND, UNKNOWN_ADDRESS = 0, 1, 2, 3, 4
GATE_FAILED, NO_VERDICT = 5, 6  # heapleak check only
CORRUPT_INPUT, UNKNOWN_HEAP, OVER_BUDGET, INVALID_ARGUMENT, NO_GRAPHVIZ = 7, 8, 9, 10, 11
DAEMON_ERROR, UNREACHABLE, NOT_READABLE, NOT_A_HEAP_DUMP, CANNOT_WRITE = 12, 13, 14, 15, 16
CANCELLED = 130

os.makedirs(WORK, exist_ok=True)
TMP = tempfile.mkdtemp(prefix="hlc-")  # short: unix socket paths are limited to 107 bytes
SOCKET = os.path.join(TMP, "d.sock")
PIDS = set()  # daemons (and other children) to kill at exit
BASE_ENV = dict(os.environ, HEAPLEAKD=HEAPLEAKD, NO_COLOR="1", COLUMNS="120")


def fail(message):
    raise AssertionError(message)


def check(condition, message, result=None):
    if not condition:
        if result is not None:
            message += "\n--- rc %s\n--- stdout\n%s\n--- stderr\n%s" % (result.returncode, result.stdout, result.stderr)
        fail(message)


def run(*args, socket=SOCKET, env=None, timeout=90, input=None, cwd=None, idle=120):
    """Runs the client; --socket and --idle-timeout are added unless socket is None."""
    argv = [CLIENT]
    if socket is not None:
        argv += ["--socket", socket, "--idle-timeout", str(idle)]
    argv += [str(a) for a in args]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, input=input,
                            env=env or BASE_ENV, cwd=cwd)
    note_started(result.stderr)
    return result


def note_started(stderr):
    for pid in re.findall(r"started heapleakd \(pid (\d+)\)", stderr or ""):
        PIDS.add(int(pid))


def expect(args, code, what, **kwargs):
    result = run(*args, **kwargs)
    check(result.returncode == code, "%s: expected exit %d" % (what, code), result)
    return result


def json_of(result):
    try:
        return json.loads(result.stdout)
    except ValueError:
        fail("not JSON: %r\n%s" % (result.stdout[:500], result.stderr))


def cleanup():
    if os.path.exists(SOCKET):
        try:
            subprocess.run([CLIENT, "--socket", SOCKET, "stop"], capture_output=True, timeout=10, env=BASE_ENV)
        except subprocess.TimeoutExpired:
            pass
    for pid in PIDS:
        if not wait_gone(pid, 3):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(TMP, ignore_errors=True)


atexit.register(cleanup)


def main(test):
    try:
        test()
    except AssertionError as error:
        print("FAIL: %s" % error, file=sys.stderr)
        sys.exit(1)
    print("ok")
