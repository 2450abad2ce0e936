"""The ownership commands (explain, owner, top, retained, tree) as text and with
--json on the rbheap fixtures (known answers: the 50 leaked strings of heap2
are owned by Leaky's ARRAY, held by the class Leaky, a constant of Object),
one error path each, owner's graph output, and their --help pages."""
import shutil

from client_helper import *

PARTIAL = os.path.join(FIXTURES, "heap-profiler", "ruby-3.2-partial-retained.heap")
PATH_TEXT = "ROOT vm -> %s ThreadGroup -> %s ThreadGroup -> %s Object -> %s Leaky -> %s Array" % (*ROOT_PATH, ARRAY)


def test_explain():
    # By path: A loaded before is used as it is (h1), B is loaded (h2), C,
    # never loaded, is streamed against B and stays unloaded.
    expect(["load", H1], OK, "load A")
    r = expect(["explain", H1, H2, H3], OK, "explain with paths")
    # The rows first; without manifests (RSS not recorded) the memory block comes last.
    check("\n\nMemory: RSS not recorded (A to C): Ruby objects " in r.stdout, "explain's memory block last", r)
    lines = r.stdout.splitlines()
    check(lines[0].startswith("Leaks by bytes retained (53 objects") and "new in heap2.jsonl.gz since heap1.jsonl.gz, still alive in heap3.jsonl.gz"
          in lines[0], "explain header", r)
    # One row per leak (issue 12): the 50 strings under Leaky's ARRAY, which grew 50 -> 100 -> 150.
    check(lines[1].startswith("1. Array in Leaky: 50 objects, ") and ", retaining " in lines[1],
          "explain rank line", r)
    check("   holder: %s Array (length 50 -> 100 -> 150)" % ARRAY in r.stdout, "explain holder and growth", r)
    check("   reach:  class Leaky (ROOT vm)" in r.stdout, "explain reach", r)
    check("   path:   ROOT vm -> ThreadGroup -> ThreadGroup -> Object -> Leaky -> Array" in r.stdout,
          "explain path in Ruby names", r)
    check("   50 x String (" in r.stdout, "explain objects by class", r)
    # The two anonymous Struct classes new in B are reached through their objects'
    # class (an edge): not garbage, not leaks, listed apart, named in words.
    check("Probably not leaks:" in r.stdout and r.stdout.count("\n-  anonymous class: ") == 2 and
          "#<Class:0x" not in r.stdout and
          "bounded: " in r.stdout, "explain noise apart", r)
    listing = json_of(expect(["list", "--json"], OK, "list after explain"))
    check([h["path"] for h in listing["heaps"]] == [H1, H2], "explain loaded B, streamed C: %s" % listing)
    expect(["load", H3], OK, "load C")

    result = json_of(expect(["explain", "h1", "h2", "h3", "--json"], OK, "explain --json"))
    check(result["target"] == "h2" and result["total"]["count"] == 53, "explain --json total %s" % result)
    leak = result["leaks"][0]
    check(leak["key"] == "Array in Leaky" and leak["count"] == 50, "explain --json row %s" % leak)
    check(leak["holder"]["address"] == ARRAY and leak["holder"]["name"] == "Array", "explain --json holder %s" % leak)
    check(leak["growth"] == {"field": "length", "baseline": 50, "target": 100, "later": 150},
          "explain --json growth %s" % leak["growth"])
    check(leak["reach"] == {"kind": "class", "name": "Leaky", "root": "vm"}, "explain --json reach")
    check(len(leak["signature"]) == 16 and int(leak["signature"], 16) >= 0, "explain --json signature")
    owners = {o["address"]: o for o in leak["owners"]}
    check(ARRAY in owners and owners[ARRAY]["objects"] == 50 and owners[ARRAY]["retained"] > 0,
          "explain --json owners %s" % leak["owners"])
    check(leak["root"] == "vm" and leak["path"] == ROOT_PATH + [ARRAY], "explain --json path %s" % leak)
    check(leak["pathNames"] == ROOT_NAMES + ["Array"], "explain --json pathNames")
    check(leak["objects"][0]["key"] == "STRING" and leak["objects"][0]["count"] == 50, "explain --json objects")
    # Two Strings held by Gem's singleton classes (reached through the class
    # edge) that did not grow: bounded, where they read "unreachable" before;
    # and the String only the machine stack holds (a leak row before issue 41).
    check([n["reason"] for n in result["noise"]] == ["bounded", "bounded", "machineStack"] and
          result["noise"][0]["why"] and all(n["holder"]["type"] == "CLASS" for n in result["noise"][:2]) and
          result["noise"][2]["holder"] is None and result["noise"][2]["count"] == 1,
          "explain --json noise %s" % result["noise"])
    check(len(result["leaks"]) == 1, "one leak: Leaky's Array %s" % result["leaks"])
    check(sum(l["count"] for l in result["leaks"] + result["noise"]) == 53, "rows cover every leaked object")
    check(len(json_of(expect(["explain", "h1", "h2", "--limit", "1", "--json"], OK, "explain 2 heaps"))["leaks"])
          <= 1, "--limit reaches the daemon")

    r = expect(["explain", "h1", "nosuchheap"], UNKNOWN_HEAP, "explain unknownHeap")
    check("unknownHeap" in r.stderr, "explain names the reason", r)
    expect(["explain", "h1"], USAGE, "explain with one heap")
    expect(["explain", "h1", "h2", "--limit", "many"], USAGE, "explain --limit not a number")


def test_owner():
    r = expect(["owner", "h2"] + LEAKED, OK, "owner")
    lines = r.stdout.splitlines()
    check(lines[0].startswith("Owner: %s Array retains " % ARRAY), "owner line", r)
    check("Path:  " + PATH_TEXT in r.stdout, "owner path", r)
    check("Merged shortest paths from the GC roots:" in r.stdout, "owner tree title", r)
    tree = lines[lines.index("Merged shortest paths from the GC roots:") + 1:]
    check(tree[0].startswith("  ROOT vm (50)"), "tree level 1", r)
    check(tree[4].startswith("          Leaky (50)") and LEAKY in tree[4], "tree level 5", r)
    check(tree[5].startswith("            Array (50)") and ARRAY in tree[5], "tree level 6", r)
    check(tree[6].startswith("              String (50)"), "tree level 7", r)

    result = json_of(expect(["owner", H2] + LEAKED[:2] + ["--json"], OK, "owner --json by path"))
    check(result["owner"]["address"] == ARRAY and result["owner"]["objects"] == 2 and result["heap"] == "h2",
          "owner --json %s" % result)
    check(result["path"] == ROOT_PATH + [ARRAY] and result["root"] == "vm", "owner --json path")
    check(result["paths"]["key"] == "GC roots" and "digraph" in result["dot"], "owner --json paths and dot")

    dot_file = os.path.join(TMP, "owner.dot")
    r = expect(["owner", "h2"] + LEAKED[:3] + ["-o", dot_file], OK, "owner -o")
    check("owner %s Array retains" % ARRAY in r.stdout and dot_file in r.stdout, "owner -o summary", r)
    check(open(dot_file).read().startswith("digraph") and "CLASS:Leaky" in open(dot_file).read(), "owner -o dot")
    # One object owns itself; two leaked strings are owned by the array.
    r = expect(["owner", "h2"] + LEAKED[:2] + ["--format", "dot"], OK, "owner --format dot")
    check(r.stdout.startswith("digraph") and "owner %s" % ARRAY in r.stderr, "owner dot on stdout", r)
    json_file = os.path.join(TMP, "owner.json")
    expect(["owner", "h2", LEAKED[0], "--json", "-o", json_file], OK, "owner --json -o")
    check(json.load(open(json_file))["owner"]["address"] == LEAKED[0], "owner --json -o writes the result")
    if shutil.which("dot"):
        svg = os.path.join(TMP, "owner.svg")
        expect(["owner", "h2"] + LEAKED[:3] + ["--format", "svg", "-o", svg], OK, "owner --format svg")
        text = open(svg).read()
        check((text.startswith("<?xml") or text.startswith("<svg")) and "CLASS:Leaky" in text, "owner SVG")
    else:
        expect(["owner", "h2", LEAKED[0], "--format", "svg"], NO_GRAPHVIZ, "owner svg without dot")

    r = expect(["owner", "h2", LEAKED[0], "0x1"], UNKNOWN_ADDRESS, "owner unknownAddress")
    check("0x1" in r.stderr and "unknownAddress" in r.stderr, "owner names the address", r)
    expect(["owner", "h2", "zz"], INVALID_ARGUMENT, "owner: not an address")
    expect(["owner", "h2"], USAGE, "owner without addresses")
    expect(["owner", "h2", LEAKED[0], "--format", "gif"], USAGE, "owner --format gif")
    r = expect(["owner", PARTIAL, "0x107bf0b78"], NO_ANSWER, "owner: a partial dump has no roots")
    check("None of the objects is reachable" in r.stdout, "owner says why", r)


def test_top():
    r = expect(["top", "h2"], OK, "top")
    check(r.stdout.startswith("Retained by object (17,617 objects reachable from GC roots, 3 unreachable"),
          "top header", r)
    check("RETAINED" in r.stdout and "0x7f9f0287dc20" in r.stdout and "Thread" in r.stdout, "top table", r)
    check("Duplicate strings (same content, many copies):" in r.stdout and '"leaked memory"' in r.stdout,
          "top duplicate strings", r)
    r = expect(["top", H2, "--by", "class", "--limit", "3"], OK, "top --by class")
    check(r.stdout.startswith("Retained by class") and "Thread" in r.stdout and "OBJECTS" in r.stdout,
          "top by class table", r)
    table = r.stdout.split("Duplicate strings")[0].splitlines()
    check(len(table) == 1 + 1 + 3, "three classes and a header", r)

    result = json_of(expect(["top", "h2", "--limit", "3", "--json"], OK, "top --json"))
    check([e["address"] for e in result["retainers"]][0] == "0x7f9f0287dc20" and len(result["retainers"]) == 3,
          "top --json retainers %s" % result)
    check(result["reachable"] == 17617 and result["heap"] == "h2", "top --json summary")
    dups = result["duplicateStrings"]
    check(len(dups) == 5 and "leaked memory" in [d["value"] for d in dups], "top --json duplicate strings %s" % dups)
    classes = json_of(expect(["top", "h2", "--by", "class", "--json"], OK, "top --by class --json"))["classes"]
    check(classes[0]["key"] == "Thread" and len(classes) == 20, "top --by class --json %s" % classes[:3])

    expect(["top", "h2", "--by", "site"], INVALID_ARGUMENT, "top --by site")
    expect(["top", "nosuchheap"], UNKNOWN_HEAP, "top unknownHeap")
    expect(["top"], USAGE, "top without a heap")

    narrow = dict(BASE_ENV, COLUMNS="60")
    r = expect(["top", "h2"], OK, "narrow top", env=narrow)
    check(all(len(line) <= 60 for line in r.stdout.splitlines()[1:]), "top tables fit 60 columns", r)


def test_retained():
    r = expect(["retained", "h2", ARRAY], OK, "retained")
    check("retained:" in r.stdout and "5,064 bytes" in r.stdout, "retained bytes", r)
    check("dominator:" in r.stdout and LEAKY + " CLASS:Leaky" in r.stdout, "retained dominator with key", r)
    check("reachable:" in r.stdout and "yes" in r.stdout, "retained reachable", r)
    result = json_of(expect(["retained", H2, ARRAY, "--json"], OK, "retained --json"))
    check(result == {"address": ARRAY, "type": "ARRAY", "class": "Array", "name": "Array", "key": "ARRAY", "memsize": 1064,
                     "reachable": True, "retained": 5064, "dominator": LEAKY}, "retained --json %s" % result)
    r = expect(["retained", "h2", "0x7f9f0287dc20"], OK, "retained of a root's target")
    check("ROOT" in r.stdout, "dominator ROOT", r)
    expect(["retained", "h2", "0x1"], UNKNOWN_ADDRESS, "retained unknownAddress")
    expect(["retained", "h2", "0xZZ"], INVALID_ARGUMENT, "retained: not an address")
    expect(["retained", "h2"], USAGE, "retained without an address")


def test_tree():
    # From the GC roots: the main Thread retains most (as in `top`), then its children indented.
    r = expect(["tree", "h2", "--limit", "2"], OK, "tree")
    lines = r.stdout.splitlines()
    check(lines[0].startswith("Dominator tree of h2"), "tree header", r)
    check(lines[1].endswith("GC roots") and lines[1].startswith("2.6 MiB"), "tree top is the super-root", r)
    check(lines[2].startswith("  1.0 MiB  0x7f9f0287dc20 Thread"), "biggest child first, indented", r)
    check(lines[3].startswith("    ") and "0x" in lines[3], "grandchildren indented twice", r)
    check("  ... 1,215 more, " in r.stdout, "children not listed are counted", r)
    # From the Leaky class: its Array (the leak), then the rest (its singleton class too).
    r = expect(["tree", "h2", LEAKY, "--depth", "1", "--limit", "1"], OK, "tree from an object")
    check(r.stdout.splitlines()[1].startswith("6.5 KiB  %s Leaky" % LEAKY), "tree from Leaky", r)
    check(r.stdout.splitlines()[2].startswith("  4.9 KiB  %s Array" % ARRAY), "Leaky's array under it", r)
    check("... 3 more, 1.1 KiB" in r.stdout, "Leaky's other children", r)
    result = json_of(expect(["tree", H2, ARRAY, "--depth", "1", "--json"], OK, "tree --json"))
    check(result["root"]["address"] == ARRAY and result["root"]["childCount"] == 100
          and len(result["root"]["children"]) == 10, "tree --json: 10 of the array's 100 strings %s" % result["root"].get("childCount"))
    expect(["tree", "h2", "--depth", "9"], INVALID_ARGUMENT, "tree --depth out of range")
    expect(["tree", "h2", "0x1"], UNKNOWN_ADDRESS, "tree unknownAddress")
    expect(["tree", "nosuchheap"], UNKNOWN_HEAP, "tree unknownHeap")
    expect(["tree", "h2", "--depth", "deep"], USAGE, "tree --depth not a number")
    expect(["tree"], USAGE, "tree without a heap")


def test():
    test_explain()
    test_owner()
    test_top()
    test_retained()
    test_tree()
    r = expect(["--help"], OK, "--help", socket=None)
    for command in ("explain", "owner", "top", "retained", "tree"):
        check("  " + command + " " in r.stdout, "--help lists " + command, r)
        r2 = expect([command, "--help"], OK, command + " --help", socket=None)
        check(r2.stdout.startswith("usage: heapleak-client " + command), command + " --help page", r2)
        check("common options:" in r2.stdout, command + " --help shows the common options", r2)
    expect(["stop"], OK, "stop")


main(test)
