"""Never a stale heap or a wrong file (issue 26, items 1 and 2): the dump
loop every user runs (dump A B C, look, fix, dump again to the same paths,
look again) answers from the files as they are now, a path argument is a
path (never a heap another folder loaded under that name), and headers name
the files."""
import gzip
from client_helper import *


def write_plain(source, target):
    with gzip.open(source, "rb") as f:
        data = f.read()
    with open(target + ".tmp", "wb") as out:
        out.write(data)
    os.replace(target + ".tmp", target)  # as a new dump lands: another inode


def test():
    run_dir = os.path.join(TMP, "app")
    other = os.path.join(TMP, "other")
    os.makedirs(run_dir)
    os.makedirs(other)
    for name, source in (("A", H1), ("B", H2), ("C", H3)):
        write_plain(source, os.path.join(run_dir, name + ".json"))

    first = json_of(expect(["stats", "A.json", "B.json", "C.json", "--json"], OK, "first stats", cwd=run_dir))
    check(first["total"]["count"] == 53, "53 leaked strings first: %s" % first["total"])
    check(first["files"] == {"baseline": "A.json", "target": "B.json", "later": "C.json"},
          "stats names the files: %s" % first.get("files"))
    r = expect(["stats", "A.json", "B.json", "C.json"], OK, "stats table", cwd=run_dir)
    check("new in B.json since A.json, still alive in C.json" in r.stdout, "stats header names files", r)
    check("reloaded" not in r.stderr, "an unchanged file is not reloaded", r)
    r = expect(["explain", "A.json", "B.json", "C.json"], OK, "explain table", cwd=run_dir)
    check("new in B.json since A.json, still alive in C.json" in r.stdout, "explain header names files", r)
    ids = [h["heap"] for h in json_of(expect(["list", "--json"], OK, "list"))["heaps"]]
    check(len(ids) == 1, "B loaded, A and C streamed against it: %s" % ids)

    # The fix: C is dumped again, and the leaked strings are gone from it.
    write_plain(H1, os.path.join(run_dir, "C.json"))
    r = expect(["stats", "A.json", "B.json", "C.json", "--json"], OK, "stats after C changed", cwd=run_dir)
    again = json_of(r)
    check(again["total"]["count"] != 53, "the new C is read, not the old one: %s" % again["total"])
    check("C.json changed since it was last read" in r.stderr and "read it again" in r.stderr,
          "the new read is said on stderr", r)
    check([s["path"].endswith("/app/C.json") and bool(s.get("why")) for s in again.get("streamed", [])] == [True],
          "the new read is in the result: %s" % again.get("streamed"))
    # And the leak put back: the old C again, through explain this time.
    write_plain(H3, os.path.join(run_dir, "C.json"))
    r = expect(["explain", "A.json", "B.json", "C.json", "--json"], OK, "explain after C changed back", cwd=run_dir)
    check(json_of(r)["total"]["count"] == 53 and "read it again" in r.stderr, "explain sees the leak back", r)
    # Loaded by another command, C is then reloaded when rewritten.
    expect(["top", "C.json", "--limit", "1"], OK, "C loaded on first use", cwd=run_dir)
    write_plain(H1, os.path.join(run_dir, "C.json"))
    r = expect(["stats", "A.json", "B.json", "C.json", "--json"], OK, "stats after loaded C changed", cwd=run_dir)
    check("C.json changed since it was loaded" in r.stderr and "reloaded" in r.stderr,
          "the reload is said on stderr", r)
    listing = json_of(expect(["list", "--json"], OK, "list after reloads"))["heaps"]
    check(len(listing) == 2 and sum(h["path"].endswith("/app/C.json") for h in listing) == 1,
          "a reload replaces the stale heap: %s" % listing)

    # A folder with no A.json: a path is a path, never the heap another folder loaded as "A.json".
    r = expect(["explain", "A.json", "B.json", "C.json"], FILE_NOT_FOUND, "explain in a folder without the dumps",
               cwd=other)
    check("no such file" in r.stderr and os.path.join(other, "A.json") in r.stderr, "says which file", r)
    expect(["stats", "A.json", "B.json"], FILE_NOT_FOUND, "stats in a folder without the dumps", cwd=other)
    # A deleted dump is not answered from memory.
    os.remove(os.path.join(run_dir, "B.json"))
    expect(["stats", os.path.join(run_dir, "A.json"), os.path.join(run_dir, "B.json")], FILE_NOT_FOUND,
           "stats on a dump deleted since it was loaded")
    # Dumps given out of order (C B A) are said to be, on the daemon's surface too
    # (these fixtures are untraced: the file times tell).
    series = os.path.join(TMP, "series")
    os.makedirs(series)
    for k, (name, source) in enumerate((("A", H1), ("B", H2), ("C", H3))):
        write_plain(source, os.path.join(series, name + ".json"))
        os.utime(os.path.join(series, name + ".json"), (1700000000 + 60 * k, 1700000000 + 60 * k))
    r = expect(["explain", "C.json", "B.json", "A.json", "--json"], OK, "explain C B A", cwd=series)
    found = json_of(r)["series"]
    check(not found["oneSeries"] and {f["problem"] for f in found["findings"]} == {"outOfOrder"},
          "explain C B A: series says out of order: %s" % found)
    r = expect(["stats", "C.json", "B.json", "A.json"], OK, "stats C B A", cwd=series)
    check("out of order" in r.stdout + r.stderr, "stats C B A: the table says out of order", r)
    check(json_of(expect(["stats", "A.json", "B.json", "C.json", "--json"], OK, "stats A B C",
                         cwd=series))["series"]["oneSeries"], "A B C in order is one series")
    # Ids and names still work when given as one.
    expect(["stats", listing[0]["heap"], listing[1]["heap"]], OK, "stats by ids")


if __name__ == "__main__":
    main(test)
