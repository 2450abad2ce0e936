"""Auto-start: the first command starts a resident heapleakd on the socket,
a second command reuses it (and sees the heap the first loaded); --spawn uses
a private daemon; stop ends it; the idle timeout ends an unused one."""
import re
import socket as sockets

from client_helper import *


def connectable(path):
    s = sockets.socket(sockets.AF_UNIX)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def test():
    check(not os.path.exists(SOCKET), "fresh socket path")
    r = expect(["load", H1, "--json"], OK, "first command")
    started = re.findall(r"started heapleakd \(pid (\d+)\)", r.stderr)
    check(len(started) == 1, "the first command starts a daemon", r)
    pid = int(started[0])
    check(connectable(SOCKET), "the daemon listens on --socket")

    r = expect(["list", "--json"], OK, "second command")
    check("started heapleakd" not in r.stderr, "the second command reuses the daemon", r)
    check([h["path"] for h in json_of(r)["heaps"]] == [H1], "the second command sees the first's heap", r)
    check(alive(pid), "the daemon outlives its clients")

    r = expect(["list", "--json", "--spawn"], OK, "--spawn", socket=None)
    check(json_of(r)["heaps"] == [] and "started heapleakd" not in r.stderr, "--spawn uses a private daemon", r)

    r = expect(["stop"], OK, "stop")
    check(wait_gone(pid, 10), "stop ends the daemon")
    check(not connectable(SOCKET), "nobody listens after stop")
    r = expect(["stop"], OK, "stop with nothing running")
    check("no heapleakd is running" in r.stdout and "started" not in r.stderr, "stop never starts a daemon", r)

    r = expect(["list"], OK, "list with a 1 s idle timeout", idle=1)
    started = re.findall(r"started heapleakd \(pid (\d+)\)", r.stderr)
    check(len(started) == 1, "a new daemon starts", r)
    check(wait_gone(int(started[0]), 20), "the idle timeout ends an unused daemon")


main(test)
