#!/usr/bin/env python3
"""Keeps core/'s include graph layered: rooms on floors, arrows down only.

usage: check_includes.py [ROOT]          check ROOT/core (ROOT: this tree)
       check_includes.py --self-test     plant bad includes in a copy; each must fail

The floors are read from the rooms table of ROOT/core/README.md (its rows
from the top floor down): a file in core/<room>/ may include its own room
and the rooms below it. Fails, naming the files, on
  - an include of a room above the file's own (or of a room not in the table);
  - an include cycle: a .h and its .cpp are one unit, so heap.cpp including
    dominators.h while dominators.h includes heap.h is a cycle;
  - an include of daemon/, protocol/, clients/, results/, Boost.JSON or Asio
    (core/ knows nothing of the wire);
  - a "core/..." include of a file that is not there;
  - a source file outside a room, a room folder missing from the table (or the
    reverse), a room without its README.md.
Python 3 standard library only.
"""
import os
import re
import shutil
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# A table row: | `room/` | ... (the room name in backquotes, maybe linked).
ROOM_ROW = re.compile(r"^\|\s*\[?`([a-z0-9_]+)/`")
FORBIDDEN = ("daemon/", "protocol/", "clients/", "results/", "boost/json", "boost/asio")
SOURCE_EXTS = (".h", ".cpp")
ROOT_FILES = {"CMakeLists.txt", "README.md"}


def read_floors(core):
    """Room name -> floor (0 = bottom), from core/README.md's rooms table."""
    readme = os.path.join(core, "README.md")
    if not os.path.isfile(readme):
        return None, [f"{readme}: missing (it declares the rooms and their floors)"]
    with open(readme, encoding="utf-8") as f:
        rooms = [m.group(1) for m in map(ROOM_ROW.match, f) if m]
    if not rooms:
        return None, [f"{readme}: no rooms table (rows like | `base/` | ... |)"]
    dupes = sorted({r for r in rooms if rooms.count(r) > 1})
    if dupes:
        return None, [f"{readme}: room listed twice: {', '.join(dupes)}"]
    return {room: len(rooms) - 1 - k for k, room in enumerate(rooms)}, []


def unit(path):
    """A .h and its .cpp are one unit of the graph: core/heap/heap."""
    return os.path.splitext(path)[0]


def find_cycles(graph, why):
    """One printed cycle per strongly connected set of units (Tarjan, iterative)."""
    index, low, on_stack, stack, sets = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            pushed = False
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    pushed = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                members = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    members.add(w)
                    if w == v:
                        break
                if len(members) > 1:
                    sets.append(members)
    cycles = []
    for members in sets:
        # The shortest way from the set's first unit back to itself, inside the set.
        first = min(members)
        parent = {first: None}
        queue = [first]
        end = None
        for v in queue:
            for w in sorted(graph[v]):
                if w == first:
                    end = v
                    break
                if w in members and w not in parent:
                    parent[w] = v
                    queue.append(w)
            if end is not None:
                break
        path = [first]
        v = end
        while v != first:
            path.append(v)
            v = parent[v]
        path.append(first)
        path = path[:1] + path[1:-1][::-1] + path[-1:]
        hops = [why[(a, b)] for a, b in zip(path, path[1:])]
        cycles.append(f"include cycle among {len(members)} units: " + "; ".join(hops))
    return cycles


def check(root):
    """The problems found in root/core, as lines for people; empty when layered."""
    core = os.path.join(root, "core")
    floors, problems = read_floors(core)
    if floors is None:
        return problems
    graph = {}
    why = {}
    for room in sorted(floors):
        folder = os.path.join(core, room)
        if not os.path.isdir(folder):
            problems.append(f"core/{room}/: in the rooms table but no such folder")
        elif not os.path.isfile(os.path.join(folder, "README.md")):
            problems.append(f"core/{room}/README.md: missing (what the room owns, what it may include)")
    for dirpath, dirnames, filenames in os.walk(core):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        parts = rel_dir.split("/")
        if len(parts) == 2 and parts[1] not in floors:
            problems.append(f"{rel_dir}/: a folder that is no room of core/README.md's table")
            dirnames[:] = []
            continue
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}"
            if len(parts) == 1:
                if name not in ROOT_FILES:
                    problems.append(f"{rel}: every core file lives in a room (core/<room>/)")
                continue
            if not name.endswith(SOURCE_EXTS):
                continue
            room = parts[1]
            graph.setdefault(unit(rel), set())
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                target = m.group(2)
                if target.startswith(FORBIDDEN):
                    problems.append(f"{rel}: includes {target}: core/ knows nothing of the wire "
                                    f"or the front ends ({', '.join(FORBIDDEN)})")
                    continue
                if m.group(1) != '"' or not target.startswith("core/"):
                    continue
                if not os.path.isfile(os.path.join(root, target)):
                    problems.append(f"{rel}: includes {target}, which is not there")
                    continue
                target_room = target.split("/")[1] if target.count("/") >= 2 else ""
                if target_room not in floors:
                    problems.append(f"{rel}: includes {target}, which is in no room")
                    continue
                if floors[target_room] > floors[room]:
                    problems.append(
                        f"{rel}: includes {target}: room {room}/ (floor {floors[room]}) may not "
                        f"include {target_room}/ (floor {floors[target_room]}), a floor above it")
                if unit(target) != unit(rel):
                    graph[unit(rel)].add(unit(target))
                    why.setdefault((unit(rel), unit(target)), f"{rel} -> {target}")
    for u in list(graph):
        for v in graph[u]:
            graph.setdefault(v, set())
    problems += find_cycles(graph, why)
    return problems


def self_test(root):
    """Each planted fault must be caught, and the untouched copy must pass."""
    plants = [
        ("an upward include", "core/base/error.h", '#include "core/heap/heap.h"\n',
         "a floor above it"),
        ("a cycle inside one room", "core/heap/heap.cpp", '#include "core/heap/naming.h"\n',
         "include cycle"),
        ("Boost.JSON in core", "core/base/address.cpp", "#include <boost/json.hpp>\n",
         "knows nothing of the wire"),
        ("the daemon in core", "core/graph/dominators.cpp", '#include "daemon/heap_store.h"\n',
         "knows nothing of the wire"),
        ("a header that is not there", "core/heap/heap.cpp", '#include "core/heap/no_such.h"\n',
         "which is not there"),
        ("a file outside the rooms", "core/stray.h", "#pragma once\n",
         "every core file lives in a room"),
    ]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="check_includes.") as tmp:
        pristine = os.path.join(tmp, "pristine")
        shutil.copytree(os.path.join(root, "core"), os.path.join(pristine, "core"))
        clean = check(pristine)
        if clean:
            failed += 1
            print("FAIL the untouched copy of core/ does not pass:")
            for p in clean:
                print("       " + p)
        for k, (what, path, line, expect) in enumerate(plants):
            tree = os.path.join(tmp, f"plant{k}")
            shutil.copytree(pristine, tree)
            target = os.path.join(tree, path)
            text = ""
            if os.path.exists(target):
                with open(target, encoding="utf-8") as f:
                    text = f.read()
            with open(target, "w", encoding="utf-8") as f:
                f.write(line + text)
            found = check(tree)
            if any(expect in p for p in found):
                print(f"ok   {what} is caught: {next(p for p in found if expect in p)}")
            else:
                failed += 1
                print(f"FAIL {what} ({path}: {line.strip()}) is not caught; found: {found}")
    print(f"{len(plants) + 1 - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    default_root = os.path.normpath(os.path.join(here, "..", ".."))
    if "--self-test" in argv:
        return self_test(default_root)
    root = argv[1] if len(argv) > 1 else default_root
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problems: core/'s includes must run down its floors "
              "(core/README.md), with no cycle")
        return 1
    print("core/ is layered: every include runs down its floors (core/README.md), no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
