# Writes capture manifests of version 2 beside A.json.gz, B.json.gz and
# C.json.gz in DIR (the fixture's three dumps), with memory figures chosen so
# the accounting is worked by hand: RSS 100 -> 250 -> 400 MiB (+300), file
# 10 -> 10.5 MiB (+0.5), malloc free but held 5 -> 300 MiB (+295): bloat,
# malloc holding freed memory (fragmentation).
# usage: python3 memory_manifests.py DIR
import json
import os
import sys

MiB = 1 << 20
figures = {  # rss, file, malloc in use, free but held, gc count
    "A": (100 * MiB, 10 * MiB, 50 * MiB, 5 * MiB, 10),
    "B": (250 * MiB, 10 * MiB, 50 * MiB, 150 * MiB, 11),
    "C": (400 * MiB, 10 * MiB + MiB // 2, 51 * MiB, 300 * MiB, 12),
}
for name, (rss, file, in_use, free_held, gc) in figures.items():
    manifest = {
        "format": "heapleak-capture-manifest", "version": 2,
        "process": {"pid": 4242, "started_at": "2026-12-06T09:00:00Z"},
        "gc": {"count": gc, "compact_count": 0},
        "memory": {
            "rss": {"source": "smaps_rollup", "rss": rss, "pss": rss, "anonymous": rss - file,
                    "swap": 0, "file": file},
            "ruby_heap": {"heap_allocated_pages": 100, "heap_live_slots": 30000, "heap_free_slots": 1000,
                          "slot_size": 40, "page_size": 65536, "pages_from": "mmap",
                          "page_bytes": 6553600, "free_slot_bytes": 40000},
            "malloc": {"allocator": "glibc", "source": "mallinfo2", "in_use": in_use,
                       "free_held": free_held},
        },
    }
    with open(os.path.join(sys.argv[1], name + ".manifest.json"), "w") as f:
        json.dump(manifest, f)
