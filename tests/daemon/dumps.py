# Test dumps generated once per build dir and shared by the daemon tests and
# the transcript runner: a ~20 MB class_cache scenario (tests/gen/leakgen.rb)
# and a ~160 MB file that is eight copies of its B dump (for cancellation and
# progress: big enough that a load is still running when a cancel arrives).
# A file lock keeps parallel ctest runs from generating twice.
import fcntl
import os
import shutil
import subprocess

BIG_COPIES = 8


def _locked(work, build):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return build()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def small_dir(work, gen):
    """Directory with A.json, B.json, C.json and truth.json (class_cache small)."""
    out = os.path.join(work, "cc_small")

    def build():
        if not os.path.exists(os.path.join(out, "truth.json")):
            tmp = out + ".tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            subprocess.run(["nice", "ruby", gen, "class_cache", "small", tmp], check=True,
                           stdout=subprocess.DEVNULL, timeout=600)
            shutil.rmtree(out, ignore_errors=True)
            os.rename(tmp, out)
        return out
    return _locked(work, build)


def small_dump(work, gen):
    return os.path.join(small_dir(work, gen), "B.json")


def big_dump(work, gen):
    source = small_dump(work, gen)
    out = os.path.join(work, "big.json")

    def build():
        if not os.path.exists(out):
            with open(out + ".tmp", "wb") as dst:
                for _ in range(BIG_COPIES):
                    with open(source, "rb") as src:
                        shutil.copyfileobj(src, dst, 1 << 20)
            os.rename(out + ".tmp", out)
        return out
    return _locked(work, build)
