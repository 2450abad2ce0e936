"""examples/drive_heapleakd.py: spawns heapleakd --stdio, frames with
Content-Length, loads the rbheap fixtures, asks explain for the leak rows
(the first is Leaky.@leak's Array) and digs with root; on the README's demo
dumps (tests/gen class_cache) its first row is UserCache's Hash, never a
benign pool (issue 26, item 8)."""
import shutil
from client_helper import *


def test():
    script = os.path.join(SOURCE, "examples", "drive_heapleakd.py")
    r = subprocess.run([sys.executable, script, "--heapleakd", HEAPLEAKD], capture_output=True, text=True,
                       timeout=120, cwd=TMP)
    check(r.returncode == 0, "the example runs", r)
    check("1. Array in Leaky: 50 objects" in r.stdout and "holder: %s Array" % ARRAY in r.stdout,
          "explain's first row is the leak, with its holder", r)
    check("new in heap2.jsonl.gz since heap1.jsonl.gz" in r.stdout, "the header names the files", r)
    check("retainer of 5 samples: %s Array (ARRAY)" % ARRAY in r.stdout and "heapleakd exited with 0" in r.stdout,
          "root on the row's samples finds its holder; clean exit", r)
    r = subprocess.run([sys.executable, script, "--heapleakd", HEAPLEAKD, H1, H2, H3], capture_output=True,
                       text=True, timeout=120, cwd=TMP)
    check(r.returncode == 0 and ARRAY in r.stdout, "explicit dump paths", r)
    ruby = shutil.which("ruby")
    if ruby:
        demo = os.path.join(TMP, "demo")
        subprocess.run([ruby, os.path.join(SOURCE, "tests", "gen", "leakgen.rb"), "class_cache", "small", demo],
                       check=True, capture_output=True, timeout=180)
        r = subprocess.run([sys.executable, script, "--heapleakd", HEAPLEAKD] +
                           [os.path.join(demo, d + ".json") for d in "ABC"], capture_output=True, text=True,
                           timeout=120, cwd=TMP)
        first = [line for line in r.stdout.splitlines() if line.startswith("1. ")]
        check(r.returncode == 0 and first and first[0].startswith("1. Hash in UserCache: 2700 objects"),
              "on the README's demo dumps the first row is UserCache's cache", r)
        check("Noise::Connection" not in r.stdout, "not the benign connection pool", r)


main(test)
