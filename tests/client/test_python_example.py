"""examples/drive_heapleakd.py: spawns heapleakd --stdio, frames with
Content-Length, loads the rbheap fixtures, runs stats and root, prints the
retainer (Leaky.@leak)."""
from client_helper import *


def test():
    script = os.path.join(SOURCE, "examples", "drive_heapleakd.py")
    r = subprocess.run([sys.executable, script, "--heapleakd", HEAPLEAKD], capture_output=True, text=True,
                       timeout=120, cwd=TMP)
    check(r.returncode == 0, "the example runs", r)
    check("retainer: %s Array (ARRAY)" % ARRAY in r.stdout, "prints the retainer", r)
    check("CLASS:Leaky" in r.stdout and "heapleakd exited with 0" in r.stdout, "root path and clean exit", r)
    r = subprocess.run([sys.executable, script, "--heapleakd", HEAPLEAKD, H1, H2, H3], capture_output=True,
                       text=True, timeout=120, cwd=TMP)
    check(r.returncode == 0 and ARRAY in r.stdout, "explicit dump paths", r)


main(test)
