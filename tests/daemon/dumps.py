# Test dumps shared by the daemon tests and the transcript runner, generated
# once per build dir by the harness (tests/support/heapleakd.py): a ~20 MB
# class_cache scenario (tests/gen/leakgen.rb) and a ~480 MB file of 24
# copies of its B dump (big enough that a load still runs when a cancel comes,
# and reports progress: a lone load reads it in two halves at once, ~0.3 s in
# the dev build).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import heapleakd  # noqa: E402

BIG_COPIES = 24


def small_dir(work, gen):
    """Directory with A.json, B.json, C.json and truth.json (class_cache small)."""
    return heapleakd.leakgen(work, gen)


def small_dump(work, gen):
    return os.path.join(small_dir(work, gen), "B.json")


def big_dump(work, gen):
    # Beside its source, so a regenerated small dump never meets an old copy.
    small = small_dir(work, gen)
    return heapleakd.concatenated(os.path.join(small, "B.json"), os.path.join(small, f"x{BIG_COPIES}", "big.json"), BIG_COPIES)
