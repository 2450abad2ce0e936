"""Every exit code of heapleak-client's table (130 is also in test_cancel; the
table is the one heapleak shares, docs/exit-codes.md; 5 and 6 are check's):
usage errors, each data.reason, missing Graphviz, a broken daemon (a fake one
here), and a daemon that cannot be reached."""
import socket as sockets
import threading

from client_helper import *

PARTIAL = os.path.join(FIXTURES, "heap-profiler", "ruby-3.2-partial-retained.heap")


def fake_daemon(path, reply):
    """Answers every connection's first frame with `reply` bytes (b"" closes at once)."""
    server = sockets.socket(sockets.AF_UNIX)
    server.bind(path)
    server.listen(4)
    server.settimeout(30)

    def serve():
        try:
            while True:
                conn, _ = server.accept()
                with conn:
                    conn.settimeout(10)
                    if reply:
                        conn.recv(65536)
                        conn.sendall(reply)
                        time.sleep(0.5)
        except OSError:
            pass

    threading.Thread(target=serve, daemon=True).start()
    return server


def test():
    expect(["list"], OK, "ok")
    expect(["path", PARTIAL, "0x107bf0b78"], NO_ANSWER, "noAnswer: a partial dump has no roots")
    for args in (["bogus"], ["stats", "h1"], ["path", "h1", "0x1", "extra"], ["load"], ["list", "--nope"],
                 ["references", "h1", "0x1", "--limit", "ten"], ["root", "h1", "0x1", "--format", "gif"],
                 ["rpc", os.path.join(TMP, "missing.jsonl")]):
        r = expect(args, USAGE, "usage: %s" % args)
        check("heapleak-client:" in r.stderr, "usage errors explain themselves", r)
    expect([], USAGE, "no command", socket=None)
    expect(["load", "/nonexistent/A.json"], FILE_NOT_FOUND, "fileNotFound")
    expect(["path", H2, "0x1"], UNKNOWN_ADDRESS, "unknownAddress")
    expect(["load", TMP], NOT_READABLE, "notReadable: a directory")
    not_dump = os.path.join(TMP, "notes.json")
    with open(not_dump, "w") as f:
        f.write("hello\nworld\n")
    expect(["load", not_dump], NOT_A_HEAP_DUMP, "notAHeapDump")
    truncated = os.path.join(TMP, "cut.json.gz")
    with open(H1, "rb") as src, open(truncated, "wb") as dst:
        dst.write(src.read()[:50000])
    # Changed on purpose (issue: a dump cut short): a cut gzip loads what it
    # holds, exit 0, with a loud truncated warning; a gzip cut before any
    # record is still corruptInput.
    r = expect(["load", truncated], 0, "a gzip cut short loads")
    check("warning: truncated" in r.stderr, "a cut gzip warns", r)
    header_only = os.path.join(TMP, "cut-header.json.gz")
    with open(H1, "rb") as src, open(header_only, "wb") as dst:
        dst.write(src.read()[:12])
    expect(["load", header_only], CORRUPT_INPUT, "corruptInput: a gzip cut before any record")
    r = expect(["path", "nosuchheap", "0x1"], UNKNOWN_HEAP, "unknownHeap")
    check("unknownHeap" in r.stderr, "the reason is named", r)
    expect(["unload", "nosuchheap"], UNKNOWN_HEAP, "unload unknownHeap")
    expect(["path", H2, "zz"], INVALID_ARGUMENT, "invalidArgument: not an address")
    expect(["stats", H1, H2, "--by", "colour"], INVALID_ARGUMENT, "-32602: bad groupBy")

    # overBudget: a daemon of our own with a 1 MiB budget.
    budget_socket = os.path.join(TMP, "budget.sock")
    daemon = subprocess.Popen([HEAPLEAKD, "--listen", "unix:" + budget_socket, "--max-memory", "1M",
                               "--idle-timeout", "60"], stderr=subprocess.DEVNULL)
    PIDS.add(daemon.pid)
    deadline = time.time() + 10
    while not os.path.exists(budget_socket) and time.time() < deadline:
        time.sleep(0.05)
    expect(["load", H1], OVER_BUDGET, "overBudget", socket=budget_socket)
    expect(["stop"], OK, "stop the budget daemon", socket=budget_socket)
    daemon.wait(timeout=10)

    no_dot = dict(BASE_ENV, PATH=os.path.join(TMP, "empty-path"))
    r = expect(["root", "h1", "0x1", "--format", "svg"], NO_GRAPHVIZ, "no Graphviz", env=no_dot)
    check("apt-get install graphviz" in r.stderr, "says how to install Graphviz", r)

    expect(["root", H2, LEAKED[0], "-o", "/nonexistent/dir/g.dot"], CANNOT_WRITE, "unwritable -o file")
    # -o goes through the one safe path (core/base/safe_write.h), the graph dot renders too: a link
    # planted at the name is refused, and neither it nor the file it points at is touched
    victim = os.path.join(TMP, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep")
    for fmt in ("dot", "svg"):
        planted = os.path.join(TMP, "planted." + fmt)
        os.symlink(victim, planted)
        r = expect(["root", H2, LEAKED[0], "--format", fmt, "-o", planted], CANNOT_WRITE, "-o onto a planted link")
        check("link" in r.stderr, "says why: %r" % r.stderr)
        check(open(victim).read() == "keep" and os.path.islink(planted), "%s: the link and its target stay" % fmt)
    with open("/dev/full", "w") as full:
        r = subprocess.run([CLIENT, "--socket", SOCKET, "list"], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60, env=BASE_ENV)
    check(r.returncode == CANNOT_WRITE and "cannot write the output" in r.stderr,
          "stdout on /dev/full: exit %d, %r" % (r.returncode, r.stderr))
    fake = os.path.join(TMP, "fake.sock")
    server = fake_daemon(fake, b"Content-Length: 5\r\n\r\nhello")
    r = expect(["list"], DAEMON_ERROR, "a reply that is not JSON", socket=fake)
    server.close()
    os.unlink(fake)

    server = fake_daemon(fake, b"")
    r = expect(["list"], UNREACHABLE, "a daemon that hangs up", socket=fake)
    check("lost the connection" in r.stderr, "says the connection was lost", r)
    server.close()
    not_socket = os.path.join(TMP, "plain-file")
    open(not_socket, "w").close()
    r = expect(["list"], UNREACHABLE, "a socket path heapleakd cannot use", socket=not_socket)
    check("not a socket" in r.stderr, "shows the daemon's own complaint", r)
    gone = dict(BASE_ENV, HEAPLEAKD="/nonexistent/heapleakd")
    r = expect(["stop"], OK, "stop reaches nothing and says so", socket=os.path.join(TMP, "none.sock"), env=gone)
    expect(["stop"], OK, "stop")


main(test)
