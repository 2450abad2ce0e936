"""Ctrl-C during a load: the client sends $/cancelRequest, waits for the
-32800 reply and exits 130; the daemon stays up with nothing loaded. While
the load runs, `list` from another shell names it as loading. stderr is
a pseudo-terminal so the progress bar shows when the load has begun."""
import gzip
import pty
import select

from client_helper import *

BIG = os.path.join(TMP, "big.json")  # removed with TMP at exit
TARGET_BYTES = 900 << 20  # several seconds of loading on a small machine


def make_big_dump():
    if os.path.exists(BIG) and os.path.getsize(BIG) >= TARGET_BYTES:
        return
    with gzip.open(H1, "rb") as f:
        chunk = f.read()
    with open(BIG + ".tmp", "wb") as out:
        for _ in range(TARGET_BYTES // len(chunk) + 1):
            out.write(chunk)
    os.rename(BIG + ".tmp", BIG)


def test():
    make_big_dump()
    r = expect(["list"], OK, "start the daemon")
    note_started(r.stderr)
    check(PIDS, "a daemon was started", r)
    daemon = next(iter(PIDS))

    master, slave = pty.openpty()
    client = subprocess.Popen([CLIENT, "--socket", SOCKET, "load", BIG], stdout=subprocess.PIPE,
                              stderr=slave, stdin=subprocess.DEVNULL, env=BASE_ENV)
    os.close(slave)
    seen = b""
    deadline = time.time() + 30
    while b"Loading" not in seen and time.time() < deadline and client.poll() is None:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
    check(b"Loading" in seen, "a progress bar on the terminal: %r" % seen)
    check(client.poll() is None, "the load finished before Ctrl-C; make the dump bigger")
    r = expect(["list"], OK, "list while the load runs")
    check("loading: big.json" in r.stdout, "list names the load still running", r)
    client.send_signal(signal.SIGINT)
    try:
        out, _ = client.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        client.kill()
        fail("the client did not finish within 60 s of Ctrl-C")
    deadline = time.time() + 2
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if not ready:
            break
        try:
            seen += os.read(master, 4096)
        except OSError:
            break
    os.close(master)
    check(client.returncode == CANCELLED, "exit %d after Ctrl-C, got %s; stderr %r" % (CANCELLED, client.returncode, seen))
    check(b"cancelled" in seen, "says cancelled: %r" % seen)
    check(alive(daemon), "the daemon survives the client's Ctrl-C")
    r = expect(["list", "--json"], OK, "list after cancel")
    check("started heapleakd" not in r.stderr, "the same daemon answers", r)
    check(json_of(r)["heaps"] == [], "a cancelled load leaves nothing loaded", r)


main(test)
