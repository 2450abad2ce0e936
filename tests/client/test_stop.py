"""`stop` then any command (issue 26, item 5): stop returns only when the old
daemon is gone, so the next command starts a new one at once, every time; a
daemon that stops never removes the socket a newer daemon has put in its
place; and when an auto-started daemon fails, the message quotes a log that is
its own (never the old daemon's, never silently empty) and how it ended."""
from client_helper import *
from heapleakd import process_running as running  # noqa: E402


def daemon_pid(stderr):
    found = re.findall(r"started heapleakd \(pid (\d+)\)", stderr)
    return int(found[-1]) if found else None


def test():
    for attempt in range(5):
        r = expect(["load", H2], OK, "load (round %d)" % attempt)
        pid = daemon_pid(r.stderr)
        check(pid is not None, "round %d: a new daemon was started" % attempt, r)
        expect(["stop"], OK, "stop (round %d)" % attempt)
        # At once, no waiting: stop has returned, so the daemon is gone.
        check(not running(pid), "round %d: stop returned while heapleakd %d still ran" % (attempt, pid))
        check(not os.path.exists(SOCKET), "round %d: the socket is gone with it" % attempt)
        started = time.time()
        r = expect(["list"], OK, "list right after stop (round %d)" % attempt, timeout=30)
        check(daemon_pid(r.stderr) not in (None, pid) and time.time() - started < 10,
              "round %d: the next command starts a new daemon at once" % attempt, r)
        expect(["stop"], OK, "stop again (round %d)" % attempt)

    # A daemon that stops leaves alone a socket another daemon put at its path.
    old_socket = os.path.join(TMP, "old.sock")
    old = subprocess.Popen([HEAPLEAKD, "--listen", "unix:" + SOCKET], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    PIDS.add(old.pid)
    wait_for = time.time() + 20
    while not os.path.exists(SOCKET) and time.time() < wait_for:
        time.sleep(0.02)
    os.rename(SOCKET, old_socket)  # as a new daemon takes over a path
    r = expect(["list"], OK, "a new daemon on the path")
    new_pid = daemon_pid(r.stderr)
    old.terminate()
    old.wait(timeout=20)
    check(os.path.exists(SOCKET), "the old daemon, stopping, removed the new daemon's socket")
    r = expect(["list"], OK, "the new daemon still answers")
    check(daemon_pid(r.stderr) is None, "no third daemon was needed", r)
    check(running(new_pid), "the new daemon runs on")
    expect(["stop"], OK, "stop the new one")

    # A daemon that cannot start: the message says how it ended and quotes its own log.
    shared = os.path.join(TMP, "shared")
    os.makedirs(shared)
    os.chmod(shared, 0o777)  # writable by others, no sticky bit: heapleakd refuses it
    r2 = run("--socket", os.path.join(shared, "d.sock"), "list", socket=None)
    check(r2.returncode == UNREACHABLE, "refused with --socket too", r2)
    check("exited with status 1" in r2.stderr and "writable by other users" in r2.stderr,
          "the failure says how the daemon ended and quotes its log", r2)


if __name__ == "__main__":
    main(test)
