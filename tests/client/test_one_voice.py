"""One voice: every command both CLIs share, run by `heapleak` (loads the dumps
itself) and by `heapleak-client` (asks heapleakd) on the same dumps, prints the
same text (results/text renders both); only how each names a heap differs (the
dump's path, or the daemon's id). And one escaping rule: a dump whose class
names, file paths, root names and string values carry ESC/OSC, BEL, C1 and
bidi controls reaches neither CLI's screen raw (issue 27, item 4)."""
import gzip
import shutil

from client_helper import *

HEAPLEAK = os.path.abspath(sys.argv[5])
# No $COLUMNS and stdout a pipe: the client cuts nothing, as `heapleak` never does.
ENV = {k: v for k, v in BASE_ENV.items() if k != "COLUMNS"}
ENV["HEAPLEAK_NO_CACHE"] = "1"


def cli(*args):
    return subprocess.run([HEAPLEAK] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=120, env=ENV)


def client(*args):
    return run(*args, env=ENV)


def same(what, one_shot, daemon, paths):
    """The two outputs, with each dump's path in heapleak's named as the daemon's id."""
    text = one_shot
    for path, heap in paths:
        text = text.replace(path, heap)
    if text != daemon:
        fail("%s: heapleak and heapleak-client differ\n--- heapleak\n%s\n--- heapleak-client\n%s"
             % (what, text, daemon))


def test_shared_commands():
    ids = [(H1, "h1"), (H2, "h2"), (H3, "h3")]
    # Load in this order so the ids are h1 h2 h3.
    for path in (H1, H2, H3):
        expect(["load", path], OK, "load", env=ENV)
    commands = [
        (["stats", H1, H2, H3], ["stats", "h1", "h2", "h3"]),
        (["stats", H1, H2], ["stats", "h1", "h2"]),
        (["stats", H1, H2, H3, "--limit", "1"], ["stats", "h1", "h2", "h3", "--limit", "1"]),
        (["explain", H1, H2, H3], ["explain", "h1", "h2", "h3"]),
        (["explain", H1, H2, H3, "--limit", "1"], ["explain", "h1", "h2", "h3", "--limit", "1"]),
        (["top", H2], ["top", "h2"]),
        (["top", H2, "--by", "class", "--limit", "5"], ["top", "h2", "--by", "class", "--limit", "5"]),
        (["owner", H2] + LEAKED[:3], ["owner", "h2"] + LEAKED[:3]),
        (["path", H2, LEAKED[0]], ["path", "h2", LEAKED[0]]),
    ]
    for one_shot_args, client_args in commands:
        a, b = cli(*one_shot_args), client(*client_args)
        what = " ".join(client_args)
        check(a.returncode == b.returncode == OK, "%s: both exit 0 (%d, %d)\n%s\n%s"
              % (what, a.returncode, b.returncode, a.stderr, b.stderr))
        check(a.stdout.strip() != "", "%s: heapleak printed nothing" % what, a)
        same(what, a.stdout, b.stdout, ids)
    # root: the graph on stdout, the answer in words on stderr, in both.
    a, b = cli("root", H2, *LEAKED[:3]), client("root", "h2", *LEAKED[:3])
    check(a.returncode == b.returncode == OK, "root: both exit 0", b)
    same("root's graph", a.stdout, b.stdout, [])  # the dot names the dump by its path in both
    same("root's summary", a.stderr, b.stderr, ids)
    # root --format dot|svg|png in both (heapleak's had no svg).
    check(cli("root", H2, LEAKED[0], "--format", "gif").returncode == USAGE, "heapleak root --format gif: usage")
    if shutil.which("dot"):
        for fmt in ("svg", "png"):
            one, two = os.path.join(TMP, "one." + fmt), os.path.join(TMP, "two." + fmt)
            a = cli("root", H2, *LEAKED[:3], "--format", fmt, "-o", one)
            b = client("root", "h2", *LEAKED[:3], "--format", fmt, "-o", two)
            check(a.returncode == b.returncode == OK, "root --format %s: both exit 0" % fmt, a)
            same("root --format %s's summary" % fmt, a.stdout.replace(one, two), b.stdout, ids)
            with open(one, "rb") as f1, open(two, "rb") as f2:
                check(f1.read() == f2.read(), "root --format %s: the same %s from both CLIs" % (fmt, fmt))


def test_one_page():
    """report: the same page, byte for byte, from heapleak and from heapleakd."""
    one, two = os.path.join(TMP, "one.html"), os.path.join(TMP, "two.html")
    a, b = cli("report", H1, H2, H3, "-o", one), client("report", H1, H2, H3, "-o", two)
    check(a.returncode == b.returncode == OK, "report: both exit 0 (%d, %d)\n%s\n%s"
          % (a.returncode, b.returncode, a.stderr, b.stderr))
    with open(one, "rb") as f1, open(two, "rb") as f2:
        page = f1.read()
        check(page == f2.read(), "report: the same page from both CLIs")
    check(page.startswith(b"<!DOCTYPE html>") and b"Array in Leaky" in page, "report: the fixture's page")


def test_series():
    """explain over a series: loaded last, as the other tests count heap ids."""
    # Four dumps (A, B, B again, C): each row's growth in every dump, alike.
    series = []
    for k, source in enumerate((H1, H2, H2, H3)):
        series.append(os.path.join(TMP, "series%d.jsonl.gz" % (k + 1)))
        shutil.copy(source, series[-1])
    a, b = cli("explain", *series), client("explain", *series)
    check(a.returncode == b.returncode == OK, "explain over a series: both exit 0 (%d, %d)\n%s\n%s"
          % (a.returncode, b.returncode, a.stderr, b.stderr))
    check("(length grew in 2 of 3 intervals: 50 -> 100 -> 100 -> 150)" in a.stdout,
          "explain over a series: the holder's growth in every dump\n" + a.stdout)
    same("explain over a series", a.stdout, b.stdout, [])


# What only the daemon's answer has: its heap handles and the loads it made.
DAEMON_ONLY = ("baseline", "target", "later", "heaps", "loaded", "reloaded", "streamed")


def alike(a, b):
    """Equal, but for the last digit of a double: heapleak-client parses the
    daemon's JSON and prints it again, and Boost.JSON 1.81 reads a decimal to
    within an ulp, not always exactly."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1.0)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(alike(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(alike, a, b))
    return a == b


def one_document(what, one_shot, daemon):
    """heapleak's --json and heapleak-client's --json: one document, but for the
    daemon's handles (which heaps it used, which it loaded)."""
    check(one_shot.returncode == daemon.returncode == OK, "%s: both exit 0\n%s\n%s"
          % (what, one_shot.stderr, daemon.stderr))
    a, b = json.loads(one_shot.stdout), json.loads(daemon.stdout)
    b_own = {k: b.pop(k) for k in DAEMON_ONLY if k in b}
    check(alike(a, b), "%s: heapleak --json and heapleak-client --json differ\n--- heapleak\n%s\n"
          "--- heapleak-client\n%s" % (what, json.dumps(a, sort_keys=True)[:3000],
                                        json.dumps(b, sort_keys=True)[:3000]))
    return b_own


def test_one_document():
    """explain and stats: the one document of engine/, from both CLIs, on dumps
    the daemon has not seen (B loaded with references, A and C streamed
    against it, as `heapleak` reads them) and on heaps it holds."""
    fresh = []
    for name, source in (("one", H1), ("two", H2), ("three", H3)):
        fresh.append(os.path.join(TMP, name + ".jsonl.gz"))
        shutil.copy(source, fresh[-1])
    own = one_document("explain --json", cli("explain", *fresh, "--json"),
                       client("explain", *fresh, "--json"))
    check([note["path"] for note in own.get("loaded", [])] == fresh[1:2] and
          [note["path"] for note in own.get("streamed", [])] == [fresh[0], fresh[2]] and
          own["baseline"] == fresh[0] and own["later"] == fresh[2],
          "explain loaded B and streamed A and C against it, named by their paths: %s" % own)
    listed = {h["path"]: h for h in json.loads(client("list", "--json").stdout)["heaps"]}
    check([p in listed for p in fresh] == [False, True, False] and listed[fresh[1]]["references"],
          "of the three, B alone loaded, with references: %s" % listed)
    for args in (["explain", "--by", "site"], ["explain", "--limit", "1"], ["explain", "--limit", "0"],
                 ["stats"], ["stats", "--by", "generation"]):
        one_document(" ".join(args) + " --json", cli(args[0], *fresh, *args[1:], "--json"),
                     client(args[0], *fresh, *args[1:], "--json"))
    # A streamed dump named by another command: loaded on first use.
    r = client("top", fresh[0], "--json")
    check(r.returncode == OK, "top on a streamed dump's file", r)
    listed = {h["path"]: h for h in json.loads(client("list", "--json").stdout)["heaps"]}
    check(fresh[0] in listed and listed[fresh[0]]["references"], "top on A loads it: %s" % listed)


def nasty_dump(path):
    """A small dump whose strings carry terminal controls: a class named with an
    OSC title change and a bell, a file path with CSI and a right-to-left
    override, a root name with a C1 CSI, and a string value (twice, so `top`
    lists it among the duplicates) with ESC [2J and a bidi isolate."""
    klass = "Evil\x1b]0;pwned\x07Cache"
    file = "app/\x1b[31mred\u202eb.rb"
    value = "\x1b[2Jcleared\u2066"
    records = [
        {"type": "ROOT", "root": "vm\u009b2J", "references": ["0x1000"]},
        {"address": "0x1000", "type": "CLASS", "name": klass, "references": ["0x2000"],
         "memsize": 500},
        {"address": "0x2000", "type": "OBJECT", "class": "0x1000", "file": file, "line": 7,
         "references": ["0x3000", "0x3100"], "memsize": 40},
        {"address": "0x3000", "type": "STRING", "class": "0x1000", "value": value, "bytesize": 16,
         "memsize": 4000, "file": file, "line": 8},
        {"address": "0x3100", "type": "STRING", "class": "0x1000", "value": value, "bytesize": 16,
         "memsize": 4000, "file": file, "line": 8},
    ]
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


FORBIDDEN = ["\x1b", "\x07", "\u009b", "\u009d", "\u202e", "\u2066"]


def clean(what, result):
    for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        for raw in FORBIDDEN:
            check(raw not in text, "%s: %r reached %s raw" % (what, raw, stream), result)


def test_dump_strings_escaped():
    dump = os.path.join(TMP, "nasty.jsonl.gz")
    nasty_dump(dump)
    expect(["load", dump, "--name", "nasty"], OK, "load the nasty dump", env=ENV)
    runs = [
        ("heapleak top", cli("top", dump)),
        ("heapleak top --by class", cli("top", dump, "--by", "class")),
        ("heapleak path", cli("path", dump, "0x3000")),
        ("heapleak owner", cli("owner", dump, "0x3000", "0x3100")),
        ("heapleak info", cli("info", dump)),
        ("heapleak-client top", client("top", "nasty")),
        ("heapleak-client path", client("path", "nasty", "0x3000")),
        ("heapleak-client owner", client("owner", "nasty", "0x3000", "0x3100")),
        ("heapleak-client inspect", client("inspect", "nasty", "0x3000")),
        ("heapleak-client inspect (class)", client("inspect", "nasty", "0x2000")),
        ("heapleak-client referrers", client("referrers", "nasty", "0x3000")),
        ("heapleak-client list", client("list")),
    ]
    for what, result in runs:
        check(result.returncode == OK, "%s exits 0" % what, result)
        clean(what, result)
    top = runs[0][1].stdout
    # Shown, escaped, not dropped: the reader still sees what the dump holds.
    check("\\x1B]0;pwned\\x07Cache" in top, "heapleak top shows the class name escaped", runs[0][1])
    check('"\\u001b[2Jcleared\\u{2066}"' in top, "heapleak top shows the value escaped", runs[0][1])
    check("\\x1B[31mred\\u{202E}b.rb:7" in runs[6][1].stdout or "\\x1B[31mred\\u{202E}b.rb:8"
          in runs[6][1].stdout, "the client's path shows the file escaped", runs[6][1])
    same("top of the nasty dump", runs[0][1].stdout, runs[5][1].stdout, [(dump, "h4")])


def test_versions():
    """--version on all three binaries, one version."""
    outs = []
    for exe, name in ((HEAPLEAK, "heapleak"), (CLIENT, "heapleak-client"), (HEAPLEAKD, "heapleakd")):
        r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30, env=ENV)
        check(r.returncode == 0 and r.stdout.startswith(name + " "), "%s --version" % name, r)
        outs.append(r.stdout.split()[-1])
    check(len(set(outs)) == 1, "one version: %s" % outs)


def untimed(value):
    """A JSON document without its timings (loadSeconds...), which differ run to run."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if "econds" not in k}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def test_json_spellings():
    """--json is --format json on every heapleak command that prints JSON; another
    --format is a usage error, said before any load."""
    for args in (["stats", H1, H2], ["explain", H1, H2], ["top", H2], ["owner", H2, ARRAY],
                 ["path", H2, ARRAY], ["root", H2, LEAKED[0]], ["info", H2]):
        a, b = cli(*args, "--json"), cli(*args, "--format", "json")
        check(a.returncode == b.returncode and untimed(json.loads(a.stdout)) == untimed(json.loads(b.stdout)),
              "heapleak %s: --json and --format json differ" % args[0], b)
    for args in (["top", H2], ["owner", H2, ARRAY], ["path", H2, ARRAY], ["explain", H1, H2]):
        r = cli(*args, "--format", "yaml")
        check(r.returncode == USAGE and "--format expects" in r.stderr, "heapleak %s --format yaml" % args[0], r)


def test_same_exit_codes():
    """One exit-code table (docs/exit-codes.md): the same failure through both
    CLIs ends with the same code, and both --help pages end with the table."""
    not_dump = os.path.join(TMP, "notes.json")
    with open(not_dump, "w") as f:
        f.write("hello\nworld\n")
    corrupt = os.path.join(TMP, "corrupt.json.gz")
    with open(H1, "rb") as src, open(corrupt, "wb") as dst:
        dst.write(src.read()[:12])  # a gzip cut before any record
    missing = os.path.join(TMP, "missing.json")
    failures = [
        ("a missing file", ["top", missing], ["top", missing], FILE_NOT_FOUND),
        ("a directory", ["top", TMP], ["top", TMP], NOT_READABLE),
        ("a file that is not a dump", ["top", not_dump], ["top", not_dump], NOT_A_HEAP_DUMP),
        ("a corrupt gzip", ["top", corrupt], ["top", corrupt], CORRUPT_INPUT),
        ("not an address", ["path", H2, "zz"], ["path", "h2", "zz"], INVALID_ARGUMENT),
        ("no such grouping", ["stats", H1, H2, "--by", "colour"], ["stats", "h1", "h2", "--by", "colour"],
         INVALID_ARGUMENT),
        ("an address not in the heap", ["path", H2, "0x1"], ["path", "h2", "0x1"], UNKNOWN_ADDRESS),
        ("an unknown flag", ["top", H2, "--nope"], ["top", "h2", "--nope"], USAGE),
        ("a count that is not one", ["top", H2, "--limit", "ten"], ["top", "h2", "--limit", "ten"], USAGE),
        ("an -o file that cannot be written", ["root", H2, LEAKED[0], "-o", "/nonexistent/dir/g.dot"],
         ["root", "h2", LEAKED[0], "-o", "/nonexistent/dir/g.dot"], CANNOT_WRITE),
    ]
    for what, one_shot_args, client_args, code in failures:
        a, b = cli(*one_shot_args), client(*client_args)
        check(a.returncode == b.returncode == code, "%s: heapleak exits %d, heapleak-client %d, expected %d\n"
              "--- heapleak\n%s--- heapleak-client\n%s" % (what, a.returncode, b.returncode, code, a.stderr,
                                                         b.stderr))
        check(a.stderr.strip() and b.stderr.strip(), "%s: both say why" % what)
    # stdout that cannot take the answer (a full disk).
    codes = []
    for argv in ([HEAPLEAK, "top", H2], [CLIENT, "--socket", SOCKET, "top", "h2"]):
        with open("/dev/full", "w") as full:
            codes.append(subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, timeout=120, env=ENV).returncode)
    check(codes == [CANNOT_WRITE, CANNOT_WRITE], "stdout on /dev/full: exit %s, expected 16 in both" % codes)
    # Both --help pages end with the one table, and its last line points to the page.
    one, two = cli("--help").stdout, client("--help").stdout
    table = one[one.index("exit codes"):]
    check(two.endswith(table), "heapleak-client --help ends with heapleak's exit-code table\n%s" % two[-1500:])
    check(table.rstrip().endswith("docs/exit-codes.md"), "the table points to docs/exit-codes.md", None)
    # And the page lists the same codes.
    with open(os.path.join(SOURCE, "docs", "exit-codes.md")) as f:
        documented = set(int(c) for c in re.findall(r"^\| (\d+) \|", f.read(), re.M))
    shown = set(int(c) for c in re.findall(r"^\s{1,4}(\d+)  ", table, re.M))
    check(documented == shown, "docs/exit-codes.md lists %s, --help %s" % (sorted(documented), sorted(shown)))


def test():
    test_versions()
    test_json_spellings()
    test_shared_commands()
    test_one_page()
    test_dump_strings_escaped()
    test_series()
    test_one_document()
    test_same_exit_codes()
    expect(["stop"], OK, "stop", env=ENV)


main(test)
