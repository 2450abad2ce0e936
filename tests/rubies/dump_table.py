#!/usr/bin/env python3
"""dump_table.py - measure what ObjectSpace.dump_all writes in each Ruby
version, for the per-version table of docs/dump-format.md.

  dump_table.py probe WORK    run probe.rb under every Ruby CI covers (WORK/VERSION/),
                              then print the table, with the public fixtures
                              (tests/fixtures) as the 2.x and 3.0 columns
  dump_table.py table WORK    print the table from WORK's existing probe dumps
  dump_table.py check WORK    probe, then assert the claims docs/dump-format.md makes (CLAIMS)

Every cell is counted from the dumps: record types, ROOT categories, SHAPE
records, which fields objects carry, IMEMO kinds, DATA:VM/* structs, and where
the probe's objects (a class's ivars, a Set, a Float, an object_id, a string
literal) are and who references them. A fixture column has only what its dump
shows ("-" where probe.rb did not run). Python 3 standard library only.
"""

import gzip
import json
import os
import subprocess
import sys

import ruby_versions

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures")
# Older Rubies, from other tools' test suites (tests/fixtures/README.md): no interpreter here.
FIXTURE_COLUMNS = (
    ("2.5 (fixture)", "rbheap-3dump/heap2.jsonl.gz"),
    ("2.6/2.7 (fixture)", "heapy/my_dump_1.json.gz"),
    ("3.0 (fixture)", "heap-profiler/ruby-3.0-singleton-classes.heap.gz"),
)


def probe(work):
    for version in ruby_versions.VERSIONS:
        out = os.path.join(work, version)
        os.makedirs(out, exist_ok=True)
        ruby_versions.run(version, [os.path.join(HERE, "probe.rb"), out], {HERE: "/rubies", out: "/out"},
                          timeout=120)


def read_dump(path):
    opener = gzip.open if path.endswith(".gz") else open
    objects, roots, shapes = {}, [], []
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # the broken lines old Rubies write (dump-format.md)
            kind = rec.get("type")
            if kind == "ROOT":
                if rec["root"] not in roots:
                    roots.append(rec["root"])
            elif kind == "SHAPE":
                shapes.append(rec)
            elif "address" in rec:
                objects[rec["address"]] = rec
    return objects, roots, shapes


def referrers(objects, address):
    return [o for o in objects.values() if address in o.get("references", ())]


def label(o):
    if o["type"] == "IMEMO":
        return f"IMEMO:{o.get('imemo_type')}"
    if o["type"] == "DATA" and o.get("struct"):
        return f"DATA:{o['struct']}"
    return o.get("name") and f"{o['type']} {o['name']}" or o["type"]


def measure(dump, probe_info):
    objects, roots, shapes = read_dump(dump)
    types = sorted({o["type"] for o in objects.values()})
    fields = sorted({k for o in objects.values() for k in o})
    with_shape = {o["type"] for o in objects.values() if "shape_id" in o}
    imemo = [o for o in objects.values() if o["type"] == "IMEMO"]
    col = {
        "objects": f"{len(objects):,}",
        "types": " ".join(types),
        "roots": " ".join(roots) or "none",
        "shapes": (f"{len(shapes)}: " + " ".join(sorted({s.get("shape_type", "?") for s in shapes}))) if shapes else "none",
        "fields": fields,
        "shape_id": ("all types" if with_shape == set(types) else
                     f"all but {' '.join(sorted(set(types) - with_shape))}") if with_shape else "no",
        "slot_size": "yes" if "slot_size" in fields else "no",
        "imemo": " ".join(sorted({o.get("imemo_type", "?") for o in imemo})),
        "imemo_class": f"{sum('class' in o for o in imemo) or 'none'} of {len(imemo)}",
        "vm_data": " ".join(sorted({o["struct"] for o in objects.values()
                                    if o["type"] == "DATA" and str(o.get("struct", "")).startswith("VM/")})) or "none",
        "address_digits": str(max(len(a) - 2 for a in objects)),
    }
    if probe_info:
        col.update(probed(objects, shapes, probe_info))
    return col


def probed(objects, shapes, info):
    at = {name: objects.get(a) if a else None for name, a in info["addresses"].items()}
    store = at["ProbeCache.@store"]
    held = [label(o) for o in referrers(objects, store["address"])] if store else []
    holder = next((h for h in held if h.startswith(("CLASS", "IMEMO"))), "?")
    s = at["Set"]
    oid = at["object_id"]
    lit = at["String literal"]
    obj_id_shape = [x for x in shapes if x.get("shape_type") == "OBJ_ID"]
    return {
        "ruby": info["ruby"].split(" (")[0] + (" wasm32" if "wasm32" in info["platform"] else ""),
        "class_ivar": holder,
        "set": (f"{s['type']} " + (s.get("struct") or "Set")) if s else "absent",
        "float": "FLOAT record" if at["Float"] else "none (flonum)",
        "object_id": (f"an OBJ_ID shape (`ivars` {oid.get('ivars')})" if obj_id_shape else
                      "not in the dump") if oid else "absent",
        "chilled": "yes" if lit and lit.get("chilled") else "no",
        "pointer": f"{info['pointer_bytes'] * 8}-bit",
        "threads": info["threads"],
        "fork": info["fork"],
    }


ROWS = (
    ("Ruby", "ruby"),
    ("objects in the probe's dump", "objects"),
    ("ROOT categories (file order)", "roots"),
    ("SHAPE records: count and `shape_type`s", "shapes"),
    ("`shape_id` on objects", "shape_id"),
    ("`slot_size` on objects", "slot_size"),
    ("object fields first seen in this column", "new_fields"),
    ("IMEMO kinds", "imemo"),
    ("IMEMO records with `class`", "imemo_class"),
    ("`DATA:VM/*` structs", "vm_data"),
    ("a class's ivar (`@store`) is referenced by", "class_ivar"),
    ("`Set[...]` is", "set"),
    ("a Float (`1.5 * n`)", "float"),
    ("after `obj.object_id`", "object_id"),
    ("a string literal is `chilled`", "chilled"),
    ("record types", "types"),
    ("VALUE size; address hex digits", "pointer_digits"),
    ("Thread.new", "threads"),
    ("fork", "fork"),
)


def table(work):
    columns = []
    for name, path in FIXTURE_COLUMNS:
        columns.append((name, measure(os.path.join(FIXTURES, path), None)))
    for version in ruby_versions.VERSIONS:
        d = os.path.join(work, version)
        with open(os.path.join(d, "probe.json")) as f:
            info = json.load(f)
        columns.append((version, measure(os.path.join(d, "dump.json"), info)))
    seen = set()
    for name, col in columns:
        col["new_fields"] = " ".join(f for f in col["fields"] if f not in seen) or "none"
        seen.update(col["fields"])
        col["pointer_digits"] = f"{col.get('pointer', '-')}; {col['address_digits']}"
    print("| | " + " | ".join(name for name, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for title, key in ROWS:
        print(f"| {title} | " + " | ".join(str(col.get(key, "-")) for _, col in columns) + " |")
    return columns


# What docs/dump-format.md says of each version, as (row key, word the cell
# must hold, or "!word" it must not). Checked on every run of the probes.
WASM_CLAIMS = (("float", "FLOAT record"), ("pointer", "32-bit"), ("threads", "no"), ("fork", "no"))
CLAIMS = {
    "3.1": (("roots", "global_list"), ("shapes", "none"), ("shape_id", "no"), ("imemo_class", "!none"),
            ("class_ivar", "CLASS"), ("set", "OBJECT Set"), ("float", "none (flonum)"), ("chilled", "no")),
    "3.2": (("roots", "global_list"), ("shapes", "IVAR"), ("shape_id", "all types"), ("slot_size", "yes"),
            ("imemo_class", "none"), ("vm_data", "!pin_array_list"), ("class_ivar", "CLASS"), ("set", "OBJECT Set"),
            ("object_id", "not in the dump")) + WASM_CLAIMS,
    "3.3": (("roots", "global_list"), ("shapes", "IVAR"), ("shape_id", "all types"), ("imemo_class", "none"),
            ("vm_data", "!pin_array_list"), ("class_ivar", "CLASS"), ("chilled", "no")) + WASM_CLAIMS,
    "3.4": (("roots", "!global_list"), ("vm_data", "VM/pin_array_list"), ("vm_data", "!VM/cc_table"),
            ("class_ivar", "CLASS"), ("set", "OBJECT Set"), ("chilled", "yes"), ("imemo", "!fields")) + WASM_CLAIMS,
    "4.0": (("roots", "global_symbols"), ("roots", "!global_list"), ("imemo", "fields"),
            ("class_ivar", "IMEMO:fields"), ("vm_data", "VM/cc_table"), ("vm_data", "VM/managed_id_table"),
            ("vm_data", "VM/pin_array_list"), ("set", "DATA set"), ("object_id", "OBJ_ID"), ("shapes", "!FROZEN"),
            ("chilled", "yes")) + WASM_CLAIMS,
}


def check(columns):
    fails = 0
    for name, col in columns:
        for key, word in CLAIMS.get(name, ()):
            cell = str(col.get(key, ""))
            ok = word[1:] not in cell if word.startswith("!") else word in cell
            if not ok:
                fails += 1
                print(f"FAIL Ruby {name}: {key} is {cell!r}, docs/dump-format.md says {word!r}")
    print(f"{'FAIL' if fails else 'ok'}: {sum(len(c) for c in CLAIMS.values()) - fails} of "
          f"{sum(len(c) for c in CLAIMS.values())} per-version claims hold")
    return 1 if fails else 0


def main(argv):
    if len(argv) != 2 or argv[0] not in ("probe", "table", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    work = os.path.abspath(argv[1])
    if argv[0] in ("probe", "check"):
        try:
            probe(work)
        except (subprocess.SubprocessError, OSError) as err:
            print(f"FAIL probe.rb: {err}")
            return 1
    columns = table(work)
    return check(columns) if argv[0] == "check" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
