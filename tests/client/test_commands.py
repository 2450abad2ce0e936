"""Every heapleak-client command, as a table and with --json, on the rbheap
fixtures (known answers), plus --help pages and table width."""
from client_helper import *


def test():
    r = expect(["load", H1, "--name", "heap1"], OK, "load")
    check("heap1" in r.stdout and "17,566" in r.stdout and H1 in r.stdout, "load table", r)
    loaded = json_of(expect(["load", H2, "--json"], OK, "load --json"))
    check(loaded["heap"] == "h2" and loaded["objects"] == 17620 and loaded["path"] == H2, "load --json fields")

    r = expect(["list"], OK, "list")
    check(r.stdout.startswith("2 heaps loaded, ") and "\nHEAP " in r.stdout and "heap1" in r.stdout and "heap2.jsonl.gz" in r.stdout, "list table", r)
    check("\x1b[" not in r.stdout, "no colour when stdout is not a TTY", r)
    listing = json_of(expect(["list", "--json"], OK, "list --json"))
    check([h["heap"] for h in listing["heaps"]] == ["h1", "h2"], "list --json heaps: %s" % listing)

    # Paths already loaded are reused (matched by path); the third one, not
    # loaded, is streamed against B and stays unloaded, named by its path.
    r = expect(["stats", H1, H2, H3], OK, "stats with paths")
    check("\nString " in r.stdout and "53" in r.stdout and "new in heap2.jsonl.gz since heap1.jsonl.gz, still alive in heap3.jsonl.gz" in r.stdout, "stats table", r)
    listing = json_of(expect(["list", "--json"], OK, "list after stats"))
    check(len(listing["heaps"]) == 2, "stats reuses loaded paths, streams the third: %s" % listing)
    stats = json_of(expect(["stats", "heap1", "h2", H3, "--json"], OK, "stats --json"))
    check(stats["baseline"] == "h1" and stats["target"] == "h2" and stats["later"] == H3, "stats ids %s" % stats)
    check(json_of(expect(["load", H3, "--json"], OK, "load the third"))["heap"] == "h3", "third loaded as h3")
    check(stats["groups"][0]["key"] == "STRING" and stats["groups"][0]["count"] == 53, "stats groups")
    # --json lists every address of every group (the README says so), not a sample.
    check(set(LEAKED) <= set(stats["groups"][0]["samples"]) and len(stats["groups"][0]["samples"]) == 53,
          "stats --json: every address of the group: %d" % len(stats["groups"][0]["samples"]))
    # The fixtures are untraced: grouping by site says so instead of one silent group.
    r = expect(["stats", "h1", "h2", "h3", "--by", "site"], OK, "stats --by site untraced")
    check("trac" in r.stderr, "stats --by site on an untraced dump warns that tracing was off", r)
    check(len(json_of(expect(["stats", "h1", "h2", "--by", "class", "--limit", "1", "--samples", "2", "--json"],
                             OK, "stats options"))["groups"][0]["samples"]) == 2, "--samples reaches the daemon")

    r = expect(["root", "h2"] + LEAKED[:3], OK, "root to stdout")
    check("digraph" in r.stdout and ARRAY in r.stdout, "root prints dot", r)
    check("Nearest common retainer: " + ARRAY in r.stderr, "root summary on stderr", r)
    root = json_of(expect(["root", H2] + LEAKED[:3] + ["--json"], OK, "root --json"))
    check(root["retainer"] == ARRAY and root["samplesReached"] == 3 and "digraph" in root["dot"], "root --json")
    dot_file = os.path.join(TMP, "root.dot")
    r = expect(["root", "h2", LEAKED[0], "-o", dot_file], OK, "root -o")
    check("Nearest common retainer: " + ARRAY in r.stdout and dot_file in r.stdout, "root -o summary", r)
    check("digraph" in open(dot_file).read(), "root -o writes dot")

    r = expect(["path", "h2", ARRAY], OK, "path")
    check(r.stdout.startswith("ROOT vm reaches the object in 5 steps:") and LEAKY in r.stdout and ARRAY in r.stdout, "path table", r)
    # A relative path is a path (here, in the fixtures' folder).
    path = json_of(expect(["path", "heap2.jsonl.gz", ARRAY, "--json"], OK, "path --json by relative path",
                          cwd=os.path.dirname(H2)))
    check(path["root"] == "vm" and path["path"] == ROOT_PATH + [ARRAY], "path --json %s" % path)

    r = expect(["inspect", "h2", ARRAY], OK, "inspect")
    check("ARRAY" in r.stdout and "referrers:" in r.stdout and "record:" in r.stdout, "inspect table", r)
    obj = json_of(expect(["inspect", "h2", ARRAY, "--json"], OK, "inspect --json"))
    check(obj["referencesCount"] == 100 and obj["referrersCount"] == 1 and obj["record"]["type"] == "ARRAY",
          "inspect --json %s" % obj)

    r = expect(["referrers", "h2", ARRAY], OK, "referrers")
    check(LEAKY in r.stdout and "1-1 of 1 referrers" in r.stdout, "referrers table", r)
    page = json_of(expect(["referrers", "h2", ARRAY, "--json"], OK, "referrers --json"))
    check(page["total"] == 1 and page["items"][0]["address"] == LEAKY, "referrers --json")
    r = expect(["references", "h2", ARRAY, "--limit", "10"], OK, "references")
    check("1-10 of 100 references" in r.stdout and "--offset 10" in r.stdout, "references paging", r)
    page = json_of(expect(["references", "h2", ARRAY, "--offset", "95", "--limit", "10", "--json"], OK,
                          "references --json"))
    check(page["offset"] == 95 and len(page["items"]) == 5 and page["total"] == 100, "references page %s" % page)

    # Tables fit $COLUMNS (when stdout is not a terminal).
    narrow = dict(BASE_ENV, COLUMNS="60")
    for args in (["list"], ["path", "h2", ARRAY], ["references", "h2", ARRAY]):
        r = expect(args, OK, "narrow " + args[0], env=narrow)
        check(all(len(line) <= 60 for line in r.stdout.splitlines()), "lines fit 60 columns", r)

    r = expect(["unload", "heap1"], OK, "unload by name")
    check("unloaded h1 (heap1)" in r.stdout, "unload table", r)
    gone = json_of(expect(["unload", H3, "--json"], OK, "unload by path --json"))
    check(gone == {"heap": "h3", "name": "heap3.jsonl.gz", "unloaded": True}, "unload --json %s" % gone)

    r = expect(["--help"], OK, "--help", socket=None)
    check("exit codes:" in r.stdout and "130" in r.stdout, "--help shows the exit codes", r)
    for command in ("load", "list", "unload", "stats", "root", "path", "inspect", "referrers", "references",
                    "stop", "rpc"):
        r = expect([command, "--help"], OK, command + " --help", socket=None)
        check(r.stdout.startswith("usage: heapleak-client " + command), command + " --help page", r)

    r = expect(["stop"], OK, "stop")
    check("heapleakd stopped" in r.stdout, "stop output", r)


main(test)
