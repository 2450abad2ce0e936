// fleet.test.mjs: `heapleak fleet` over 20 synthetic workers, then the query
// docs/fleet.md promises ("the signatures that grow in most workers, with
// their median growth per hour") in the real DuckDB. Leak CacheX grows in
// workers 0-13, CacheY in 8-19, RareCache in workers 5 and 17 only. Each
// worker's three dumps have a capture manifest (clients/ruby/.../manifest.rb's
// fields): distinct pid and host, dumps 10 minutes apart. Five workers share a
// host directory, and file names and mtimes run against the order the dumps
// were taken, so only the manifests (identity, GC count) group and order them
// right. One more series is broken: it fails alone, the others go on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HEAPLEAK, HEAPLEAK_SYNTH, open, scratch } from "./duckdb.mjs";

const WORKERS = 20;
const INTERVAL = 600; // seconds between two dumps of a worker
const T0 = Date.parse("2026-03-02T08:00:00Z") / 1000;

// The SQL block of docs/fleet.md that starts with this comment: the test
// runs the query the docs show, word for word.
function docQuery(marker) {
  const doc = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../docs/fleet.md"), "utf8");
  for (const [, body] of doc.matchAll(/```sql\n([\s\S]*?)```/g)) if (body.startsWith(marker)) return body;
  throw new Error(`docs/fleet.md has no sql block starting with '${marker}'`);
}

function leaksOf(w) {
  const leaks = [];
  if (w <= 13) leaks.push("CacheX");
  if (w >= 8) leaks.push("CacheY");
  if (w === 5 || w === 17) leaks.push("RareCache");
  return leaks;
}

// DuckDB's BIGINTs come back as BigInt, which JSON.stringify refuses.
const show = (value) => JSON.stringify(value, (_, x) => (typeof x === "bigint" ? Number(x) : x));

const iso = (seconds) => new Date(seconds * 1000).toISOString().replace(".000Z", ".000000Z");

// Workers from BLOATED on record their memory (manifest version 2) and bloat:
// RSS 100 -> 250 -> 400 MiB, malloc holding 295 MiB more freed memory
// (fragmentation); the others have version 1 manifests (no memory figures).
const BLOATED = 15;
const MiB = 1024 * 1024;
function memory(n) {
  const rss = [100, 250, 400][n] * MiB;
  return {
    rss: { source: "smaps_rollup", rss, pss: rss, anonymous: rss - 10 * MiB, swap: 0, file: 10 * MiB },
    ruby_heap: { slot_size: 40, pages_from: "mmap", free_slot_bytes: 40000 },
    malloc: { allocator: "glibc", source: "mallinfo2", in_use: 50 * MiB, free_held: [5, 150, 300][n] * MiB },
  };
}

// A manifest as Heapleak::Capture::Manifest.build writes it.
function manifest(w, n, dump, bytes) {
  const at = T0 + w * 7 + n * INTERVAL;
  return {
    format: "heapleak-capture-manifest",
    version: w >= BLOATED ? 2 : 1,
    ...(w >= BLOATED ? { memory: memory(n) } : {}),
    dump,
    name: dump.replace(/\.json$/, ""),
    series: { index: n, of: 3 },
    process: {
      pid: 4000 + w,
      ppid: 1,
      started_at: iso(T0 - 3600 - w).replace(".000000Z", ".00Z"),
      hostname: `web-${Math.floor(w / 5)}`,
      program: "puma: cluster worker",
    },
    ruby: { version: "3.1.2", patchlevel: 20, engine: "ruby", platform: "x86_64-linux", description: "ruby 3.1.2" },
    gc: { name: "default", count: 100 + 50 * n, major_count: 10 + n, compact_count: 0, heap_live_slots: 10000, auto_compact: false },
    allocation_tracing: n > 0,
    capture: {
      mode: "fork",
      reason: "fits",
      vm_pause_seconds: 0.004,
      dump_seconds: 0.2,
      started_at: iso(at),
      finished_at: iso(at + 0.2),
      bytes,
      bytes_uncompressed: bytes,
      compression: "gzip-1",
      redacted: false,
      gem_version: "0.1.0",
    },
  };
}

function makeFleet(root) {
  const truth = [];
  for (let w = 0; w < WORKERS; ++w) {
    const out = join(root, "synth", String(w));
    const args = ["--out", out, "--objects", "8000", "--seed", String(100 + w), "--traced"];
    for (const leak of leaksOf(w)) args.push("--leak", leak);
    execFileSync(HEAPLEAK_SYNTH, args, { stdio: "ignore" });
    truth.push(JSON.parse(readFileSync(join(out, "truth.json"), "utf8")));
    const host = join(root, "fleet", `web-${Math.floor(w / 5)}`);
    mkdirSync(host, { recursive: true });
    ["A", "B", "C"].forEach((letter, n) => {
      // Names and mtimes run backwards: only the GC counts order them.
      const name = `w${w}-${"qpo"[n]}.json`;
      const path = join(host, name);
      renameSync(join(out, `${letter}.json`), path);
      const bytes = readFileSync(path).length;
      writeFileSync(join(host, name.replace(/\.json$/, ".manifest.json")), JSON.stringify(manifest(w, n, name, bytes), null, 2) + "\n");
      const mtime = T0 + 86400 - n * 3600;
      utimesSync(path, mtime, mtime);
    });
  }
  // A series that cannot be explained: its second dump is not a dump.
  const broken = join(root, "fleet", "broken");
  mkdirSync(broken, { recursive: true });
  writeFileSync(join(broken, "a.json"), '{"address":"0x1", "type":"STRING"}\n');
  writeFileSync(join(broken, "b.json"), '{"type":"ROOT"\u0000garbage\n');
  return truth;
}

test("fleet: the leaks that grow in most workers, in DuckDB", async () => {
  const { dir, cleanup } = scratch();
  try {
    const truth = makeFleet(dir);
    const table = join(dir, "fleet.jsonl");
    const fleet = spawnSync(HEAPLEAK, ["fleet", join(dir, "fleet"), "-o", table, "--jobs", "2"], { encoding: "utf8" });
    // One series failed (exit 1), named with why; the 20 others ran.
    assert.equal(fleet.status, 1, fleet.stderr);
    assert.match(fleet.stderr, /21 series found, 20 run, 1 failed/);
    assert.match(fleet.stderr, /failed: .*broken: exit 15: .*not a heap dump/);

    const rows = readFileSync(table, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const series = new Set(rows.map((row) => row.series));
    assert.equal(series.size, WORKERS, "one series per worker, grouped by manifest");
    for (const row of rows) {
      // Ordered by GC count: the dumps as taken, times from the manifests.
      assert.deepEqual(row.dumps.map((path) => path.slice(-6)), ["q.json", "p.json", "o.json"]);
      assert.equal(row.time_source, "manifest");
      assert.equal(row.hours, (2 * INTERVAL) / 3600);
      assert.match(row.series, /^web-\d\/40\d\d\//);
    }

    const db = await open();
    const sql = docQuery("-- The signatures that grow in most workers");
    const ranked = await db.query(sql.replaceAll("'fleet.jsonl'", `'${table}'`));
    db.close();

    // CacheX (14 workers), CacheY (12) first, then RareCache (2).
    // The holder Hash has L, 2L, 3L entries: 2L in two intervals.
    const items = truth[0].leaks.find((l) => l.holderClass === "CacheX").count / 5;
    const perHour = (2 * items * 3600) / (2 * INTERVAL);
    assert.ok(ranked.length >= 3, show(ranked));
    assert.deepEqual(
      ranked.slice(0, 3).map((r) => [r.key, Number(r.workers)]),
      [["Hash in CacheX", 14], ["Hash in CacheY", 12], ["Hash in RareCache", 2]],
    );
    for (const r of ranked.slice(0, 2)) {
      assert.match(r.signature, /^[0-9a-f]{16}$/);
      assert.ok(Math.abs(Number(r.median_growth_per_hour) - perHour) < 1e-6 * perHour, show(r));
      assert.ok(Number(r.retained) > 0);
    }
    // One memory line per series; the bloated workers first, by RSS growth,
    // the others with none recorded.
    const memoryDb = await open();
    const bloat = await memoryDb.query(docQuery("-- Which processes bloat").replaceAll("'fleet.jsonl'", `'${table}'`));
    memoryDb.close();
    assert.equal(bloat.length, WORKERS, show(bloat));
    const pidOf = (r) => Number(r.series.split("/")[1]) - 4000;
    assert.deepEqual(bloat.slice(0, WORKERS - BLOATED).map(pidOf).sort((a, b) => a - b), [15, 16, 17, 18, 19], show(bloat));
    for (const r of bloat.slice(0, WORKERS - BLOATED)) {
      assert.equal(r.memory_verdict, "fragmentation", show(r));
      assert.equal(Number(r.rss_growth), 300 * MiB);
      assert.equal(Number(r.malloc_free_held_growth), 295 * MiB);
    }
    for (const r of bloat.slice(WORKERS - BLOATED)) {
      assert.equal(r.memory_verdict, "notEnoughFigures", show(r));
      assert.equal(r.rss_growth, null);
    }
    // Every leak row carries its process's verdict too.
    assert.ok(rows.filter((row) => row.kind === "leak" && pidOf(row) >= BLOATED).every((row) => row.memory_verdict === "fragmentation"));

    // The signature is explain's: the same in every worker it grows in.
    const x = rows.filter((row) => row.reach === "CacheX");
    assert.equal(new Set(x.map((row) => row.signature)).size, 1);
    assert.deepEqual([...new Set(x.map((row) => Number(row.series.split("/")[1]) - 4000))].sort((a, b) => a - b), [...Array(14).keys()]);
    assert.ok(x.every((row) => row.sites.includes("app/services/leak_holder.rb:21")));

    // --print-commands --format json: the same runs, one argv a line, for
    // another scheduler; run by number with xargs -P -n 1 (docs/fleet.md's recipe:
    // `-I N` replaced the N of a temporary folder's random name, one run in three;
    // no shell ever parses a path) and concatenated, they give the same table.
    const rowsDir = join(dir, "rows");
    mkdirSync(rowsDir);
    const listed = spawnSync(HEAPLEAK, ["fleet", join(dir, "fleet"), "--print-commands", "--format", "json", "--out-dir", rowsDir], { encoding: "utf8" });
    const commands = listed.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(commands.length, WORKERS + 1);
    execFileSync("sh", ["-c", 'seq "$1" | xargs -P 2 -n 1 "$2" fleet "$3" --out-dir "$4" --run || true', "sh",
      String(commands.length), HEAPLEAK, join(dir, "fleet"), rowsDir], { stdio: ["ignore", "ignore", "ignore"] });
    const parts = readdirSync(rowsDir).sort().map((name) => readFileSync(join(rowsDir, name), "utf8"));
    assert.equal(parts.join(""), readFileSync(table, "utf8"));
  } finally {
    cleanup();
  }
});
