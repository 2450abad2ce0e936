"""The cache of parsed heaps, end to end: the one-shot CLI run twice says
miss then hit and prints byte-identical --json answers; a damaged image is
rebuilt with a warning; `heapleak cache list|clear`; a restarted daemon is
warm (loadHeap says hit and answers the same); a cold load that writes its
image at once and continues on the mapping (the path of heaps over the remap
threshold) answers byte for byte as a parse does. The analyses kept next to an
image (root paths, dominator tree): explain, root and top answer the same
cold, warm, warm with kept analyses and with --no-cache; damaged analyses
are computed again with a warning; a restarted daemon maps them.

usage: cache_test.py HEAPLEAK HEAPLEAKD HEAPLEAK_CLIENT FIXTURES
Every run uses a cache directory of its own (the suite's default is off)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from heapleakd import Daemon, check, wait_until  # noqa: E402

HEAPLEAK, HEAPLEAKD, CLIENT, FIXTURES = sys.argv[1:5]


def run(args, cache_dir, env=None):
    out = subprocess.run([HEAPLEAK] + args + ["--cache-dir", cache_dir], capture_output=True,
                         text=True, timeout=120, env=env)
    check(out.returncode == 0, f"heapleak {args}: exit {out.returncode}: {out.stderr}")
    return out


def cli_twice(work):
    cache = os.path.join(work, "cache")
    dumps = [os.path.join(work, f"heap{k}.jsonl.gz") for k in (1, 2, 3)]
    info = [json.loads(run(["info", dumps[1], "--json"], cache).stdout) for _ in range(2)]
    check(info[0]["cache"] == "miss" and info[1]["cache"] == "hit", f"info: {info}")
    for key in ("objects", "references", "missingReferences", "roots", "residentBytes", "warnings"):
        check(info[0][key] == info[1][key], f"info {key}: {info[0][key]} != {info[1][key]}")
    for command in (["explain"], ["stats"], ["stats", "--by", "generation"]):
        first = run(command + dumps + ["--json"], cache)
        second = run(command + dumps + ["--json"], cache)
        check(first.stdout == second.stdout, f"{command}: the warm answer differs from the cold one")
        check(first.stdout == run(command + dumps + ["--json", "--no-cache"], cache).stdout,
              f"{command}: the cached answer differs from --no-cache's")
    # explain loads B in full and streams A and C, whose images it writes
    # after the answer (the second run above mapped them: the same answer):
    # three images, listed.
    listed = json.loads(run(["cache", "list", "--json"], cache).stdout)
    check(listed["dir"] == cache and len(listed["images"]) == 3, f"cache list: {listed}")
    by_dump = {os.path.basename(i["dump"]): i for i in listed["images"]}
    check(by_dump["heap2.jsonl.gz"]["mode"] == "full", f"B's image: {by_dump}")
    check(by_dump["heap2.jsonl.gz"]["objects"] == info[0]["objects"], f"objects: {by_dump}")
    text = run(["cache", "list"], cache).stdout
    check("3 images" in text and "heap2.jsonl.gz" in text, f"cache list text: {text}")

    # A damaged image: ignored, deleted, rebuilt, with a warning on stderr.
    image = by_dump["heap2.jsonl.gz"]["image"]
    with open(image, "r+b") as f:
        f.seek(os.path.getsize(image) - 64)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))
    rebuilt = run(["info", dumps[1], "--json"], cache)
    summary = json.loads(rebuilt.stdout)
    check(summary["cache"] == "rebuilt", f"damaged image: {summary['cache']}")
    check("heapleak: warning: cache: the image of" in rebuilt.stderr and "corrupt" in rebuilt.stderr,
          f"damaged image warning: {rebuilt.stderr}")
    check(summary["objects"] == info[0]["objects"], "the rebuilt heap differs")
    check(json.loads(run(["info", dumps[1], "--json"], cache).stdout)["cache"] == "hit",
          "the rebuilt image is not reused")

    # The environment names the directory too; --no-cache leaves it alone.
    env = dict(os.environ, HEAPLEAK_CACHE_DIR=os.path.join(work, "env-cache"))
    env.pop("HEAPLEAK_NO_CACHE", None)
    out = subprocess.run([HEAPLEAK, "info", dumps[0], "--json"], capture_output=True, text=True,
                         env=env, timeout=120)
    check(json.loads(out.stdout)["cache"] == "miss", f"HEAPLEAK_CACHE_DIR: {out.stdout}")
    check(len(os.listdir(env["HEAPLEAK_CACHE_DIR"])) == 1, "HEAPLEAK_CACHE_DIR holds no image")
    out = subprocess.run([HEAPLEAK, "info", dumps[0], "--json", "--no-cache"], capture_output=True,
                         text=True, env=env, timeout=120)
    check(json.loads(out.stdout)["cache"] == "off", f"--no-cache: {out.stdout}")

    cleared = json.loads(run(["cache", "clear", "--json"], cache).stdout)
    check(cleared["images"] == 3, f"cache clear: {cleared}")
    check(json.loads(run(["cache", "list", "--json"], cache).stdout)["images"] == [], "not cleared")


def remap_same_answers(work):
    """HEAPLEAK_CACHE_REMAP_ABOVE=0 takes every heap down the path of a dump
    bigger than the threshold: parsed, written, reopened from its image, the
    parse freed. Each command cold (a fresh cache), answers equal to
    --no-cache's, the image written, no warning."""
    env = dict(os.environ, HEAPLEAK_CACHE_REMAP_ABOVE="0")
    dumps = [os.path.join(work, f"heap{k}.jsonl.gz") for k in (1, 2, 3)]
    leaked = [line.strip() for line in open(os.path.join(FIXTURES, "rbheap-3dump",
                                                         "leaked-strings.txt"))
              if line.startswith("0x")]
    commands = [["explain"] + dumps + ["--json"], ["stats"] + dumps + ["--json"],
                ["top", dumps[1], "--json"], ["top", dumps[1]], ["top", dumps[1], "--by", "class"],
                ["root", dumps[1]] + leaked[:5] + ["--json"], ["path", dumps[1], leaked[0]],
                ["owner", dumps[1]] + leaked[:5] + ["--json"], ["info", dumps[1], "--json"]]
    for n, command in enumerate(commands):
        cache = os.path.join(work, f"remap-cache-{n}")
        remapped = run(command, cache, env)
        parsed = run(command + ["--no-cache"], cache)
        check("warning" not in remapped.stderr, f"{command}: {remapped.stderr}")
        check(any(name.endswith(".hlimg") for name in os.listdir(cache)),
              f"{command}: no image written")
        if command[0] == "info":
            got, want = json.loads(remapped.stdout), json.loads(parsed.stdout)
            check(got["cache"] == "miss" and want["cache"] == "off", f"info cache: {got} {want}")
            for key in ("cache", "loadSeconds"):
                got.pop(key)
                want.pop(key)
            check(got == want, f"info after the remap differs: {got} != {want}")
        else:
            check(remapped.stdout == parsed.stdout,
                  f"{command}: the remapped answer differs from the parsed one")
        # And warm, from the image the remap wrote.
        check(run(command, cache).stdout == remapped.stdout or command[0] == "info",
              f"{command}: the warm answer differs")


def cli_analyses(work):
    cache = os.path.join(work, "analyses-cache")
    dumps = [os.path.join(work, f"heap{k}.jsonl.gz") for k in (1, 2, 3)]
    explain = ["explain"] + dumps + ["--json"]
    top = ["top", dumps[1], "--json"]

    def kept():
        listed = json.loads(run(["cache", "list", "--json"], cache).stdout)["images"]
        return {os.path.basename(i["dump"]): i["analyses"] for i in listed}

    def answers(cache_dir, extra=()):
        out = {"explain": run(explain + list(extra), cache_dir).stdout,
               "top": run(top + list(extra), cache_dir).stdout}
        leak = json.loads(out["explain"])["leaks"][0]
        root = ["root", dumps[1]] + leak["samples"][:5] + ["--json"] + list(extra)
        out["root"] = run(root, cache_dir).stdout
        return out

    # Cold: parsed, the images and analyses written at exit.
    cold = answers(os.path.join(work, "analyses-cold"))
    # Warm without analyses: the images only (info computes none).
    for dump in dumps:
        run(["info", dump, "--json"], cache)
    check(all(a == [] for a in kept().values()), f"info kept analyses: {kept()}")
    warm = answers(cache)
    check(kept()["heap2.jsonl.gz"] == ["rootPaths", "dominators"], f"not kept: {kept()}")
    check(kept()["heap1.jsonl.gz"] == [], f"A is loaded identity-only: {kept()}")
    mapped = answers(cache)
    no_cache = answers(cache, ["--no-cache"])
    for key in ("explain", "top", "root"):
        check(cold[key] == warm[key], f"{key}: the warm answer differs from the cold one")
        check(warm[key] == mapped[key], f"{key}: mapped analyses answer differently")
        check(mapped[key] == no_cache[key], f"{key}: the cached answer differs from --no-cache's")
    check("paths,dominators (" in run(["cache", "list"], cache).stdout, "cache list text: the analyses kept")

    # Damaged analyses: a warning, computed again, the same answer, kept anew.
    names = [f for f in os.listdir(cache) if f.endswith(".hlana")]
    check(len(names) == 1, f"analyses files: {os.listdir(cache)}")
    path = os.path.join(cache, names[0])
    with open(path, "r+b") as f:
        f.seek(os.path.getsize(path) - 200)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))
    out = run(explain, cache)
    check("heapleak: warning: cache: the analyses kept for" in out.stderr and "corrupt" in out.stderr,
          f"no warning: {out.stderr}")
    # The answer says so in its warnings too, and is otherwise the same.
    answer, expected = json.loads(out.stdout), json.loads(mapped["explain"])
    check(any("the analyses kept for" in w for w in answer["warnings"]), f"{answer['warnings']}")
    answer["warnings"] = [w for w in answer["warnings"] if "the analyses kept for" not in w]
    check(answer == expected, "explain after damaged analyses differs")
    check(kept()["heap2.jsonl.gz"] == ["rootPaths", "dominators"], "not kept again")
    check("warning" not in run(explain, cache).stderr, "the analyses kept again are not trusted")


def daemon_load(cache, dump):
    with Daemon([HEAPLEAKD, "--stdio", "--cache-dir", cache], stdio=True,
                log_path=os.path.join(os.path.dirname(cache), f"d-{time.monotonic_ns()}.log")) as d:
        peer = d.stdio_peer()
        peer.initialize()
        loaded = peer.result("loadHeap", {"path": dump, "name": "B"})
        # Mapped analyses are there before any query (a warm daemon's), else none.
        seeded = peer.result("listHeaps")["heaps"][0]["analysisBytes"]
        stats = peer.result("stats", {"baseline": "B", "target": "B"})
        top = peer.result("topRetainers", {"heap": "B", "limit": 5})
        # Root paths too (explain of B against itself finds no leak and needs none).
        deep = top["retainers"][-1]["address"]
        explained = peer.result("pathToRoot", {"heap": "B", "address": deep})
        # The image and then the analyses are written on the load pool after
        # the answers: wait for them.
        wait_until(lambda: [i["analyses"] for i in peer.result("cacheList")["images"]] ==
                   [["rootPaths", "dominators"]], what="the image and its analyses written")
        listed = peer.result("listHeaps")
        d.stop()
        return loaded, stats, top, listed, explained, seeded


def daemon_explain(cache, dumps):
    with Daemon([HEAPLEAKD, "--stdio", "--cache-dir", cache], stdio=True,
                log_path=os.path.join(os.path.dirname(cache), f"e-{time.monotonic_ns()}.log")) as d:
        peer = d.stdio_peer()
        peer.initialize()
        for name, dump in zip("ABC", dumps):
            peer.result("loadHeap", {"path": dump, "name": name})
        seeded = {h["name"]: h["analysisBytes"] for h in peer.result("listHeaps")["heaps"]}
        explained = peer.result("explain", {"baseline": "A", "target": "B", "later": "C"})
        wait_until(lambda: sorted(len(i["analyses"]) for i in peer.result("cacheList")["images"])
                   == [0, 0, 2], what="B's analyses written")
        d.stop()
        return explained, seeded


def daemon_restart_explain(work):
    """A restarted daemon answers explain from the analyses the first one kept."""
    cache = os.path.join(work, "daemon-explain-cache")
    dumps = [os.path.join(work, f"heap{k}.jsonl.gz") for k in (1, 2, 3)]
    cold, cold_seeded = daemon_explain(cache, dumps)
    warm, warm_seeded = daemon_explain(cache, dumps)
    check(cold_seeded == {"A": 0, "B": 0, "C": 0}, f"cold analysisBytes: {cold_seeded}")
    check(warm_seeded["B"] > 0, f"the warm daemon did not map B's analyses: {warm_seeded}")
    check(cold == warm, "explain differs on the restarted daemon")


def daemon_restart(work):
    cache = os.path.join(work, "daemon-cache")
    dump = os.path.join(work, "heap2.jsonl.gz")
    cold = daemon_load(cache, dump)
    warm = daemon_load(cache, dump)
    check(cold[0]["cache"] == "miss" and warm[0]["cache"] == "hit",
          f"restarted daemon: {cold[0]['cache']} then {warm[0]['cache']}")
    check(warm[3]["heaps"][0]["cache"] == "hit", f"listHeaps: {warm[3]}")
    for key in ("objects", "references", "missingReferences", "roots", "warnings"):
        check(cold[0][key] == warm[0][key], f"loadHeap {key} differs")
    check(cold[1] == warm[1], "stats differs on the warm daemon")
    check(cold[2] == warm[2], "topRetainers differs on the warm daemon")
    check(cold[4] == warm[4], "pathToRoot differs on the warm daemon")
    check(cold[5] == 0 and warm[5] > 0, f"analysisBytes after loadHeap: {cold[5]}, {warm[5]}")
    check(warm[3]["heaps"][0]["analysisBytes"] == warm[5], "the warm daemon computed analyses")
    # Every heap over the remap threshold (0 here): the image is written
    # before loadHeap answers and the heap served from the mapping.
    os.environ["HEAPLEAK_CACHE_REMAP_ABOVE"] = "0"
    try:
        remapped = daemon_load(os.path.join(work, "daemon-remap-cache"), dump)
    finally:
        del os.environ["HEAPLEAK_CACHE_REMAP_ABOVE"]
    check(remapped[0]["cache"] == "miss", f"remapped loadHeap: {remapped[0]['cache']}")
    for key in ("objects", "references", "missingReferences", "roots", "warnings"):
        check(remapped[0][key] == cold[0][key], f"remapped loadHeap {key} differs")
    check(remapped[1] == cold[1], "stats differs on the remapped heap")
    check(remapped[2] == cold[2], "topRetainers differs on the remapped heap")

    # heapleak-client asks its daemon (here a private --spawn one, whose cache
    # directory comes from the environment).
    env = dict(os.environ, HEAPLEAK_CACHE_DIR=cache)
    env.pop("HEAPLEAK_NO_CACHE", None)

    def client(*args):
        out = subprocess.run([CLIENT, "--spawn", "cache"] + list(args), capture_output=True,
                             text=True, env=env, timeout=120)
        check(out.returncode == 0, f"heapleak-client cache {args}: {out.returncode} {out.stderr}")
        return out.stdout
    listed = json.loads(client("list", "--json"))
    check([os.path.basename(i["dump"]) for i in listed["images"]] == ["heap2.jsonl.gz"],
          f"heapleak-client cache list: {listed}")
    table = client("list")
    check("heap2.jsonl.gz" in table, "heapleak-client cache list (table)")
    check("paths,dominators" in table, f"heapleak-client cache list: no analyses: {table}")
    check("deleted 1 image" in client("clear"), "heapleak-client cache clear")
    check(json.loads(client("list", "--json"))["images"] == [], "heapleak-client: not cleared")


def main():
    work = tempfile.mkdtemp(prefix="heapleak-cache-e2e-")
    try:
        for k in (1, 2, 3):
            shutil.copy(os.path.join(FIXTURES, "rbheap-3dump", f"heap{k}.jsonl.gz"), work)
        cli_twice(work)
        remap_same_answers(work)
        cli_analyses(work)
        daemon_restart(work)
        daemon_restart_explain(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("cache e2e: ok")


if __name__ == "__main__":
    main()
