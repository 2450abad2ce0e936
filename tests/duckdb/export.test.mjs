// export.test.mjs: `heapleak export` read by the real DuckDB engine. The SQL is
// docs/tables.md's, taken from the doc as written (blocks marked
// <!-- sql:NAME -->), so the doc cannot promise a query this test did not run.
// On three dumps (a rbheap fixture, one Ruby 3.1 writes here, a heapleak-synth
// one): "the 10 classes retaining most" equals `heapleak top --by class`, "the
// path of a given object" equals `heapleak path` for leaked objects, and the row
// counts equal `heapleak info`'s; the CSV export holds the same rows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HEAPLEAK, HEAPLEAK_SYNTH, open, run, scratch } from "./duckdb.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const env = { ...process.env, HEAPLEAK_NO_CACHE: "1" };

// docs/tables.md's queries by name, each a list of statements.
function docQueries() {
  const doc = readFileSync(join(root, "docs", "tables.md"), "utf8");
  const queries = {};
  for (const [, name, sql] of doc.matchAll(/<!-- sql:(\w+) -->\s*```sql\n([\s\S]*?)```/g)) {
    queries[name] = sql
      .split(/;\s*\n/)
      .map((s) => s.trim())
      .filter(Boolean);
  }
  return queries;
}
const sql = docQueries();

const heapleak = (args) => run(HEAPLEAK, args, { env });
const heapleakJson = (args) => JSON.parse(heapleak([...args, "--json"]));

// The statements of a doc query, OUTDIR and the example address replaced;
// the last statement's rows.
async function runDoc(db, name, { outdir, address, maxDepth } = {}) {
  let rows;
  for (let statement of sql[name]) {
    if (outdir) statement = statement.replaceAll("OUTDIR", outdir);
    if (address) statement = statement.replace(/(set variable address = )'0x[0-9a-f]+'/, `$1'${address}'`);
    if (maxDepth !== undefined)
      statement = statement.replace(/(set variable max_depth = )\d+/, `$1${maxDepth}`);
    rows = await db.query(statement);
  }
  return rows;
}

async function checkExport(dump, leaked, dir) {
  const outdir = join(dir, "tables");
  heapleak(["export", dump, outdir]);
  const db = await open();
  try {
    await runDoc(db, "load", { outdir });

    const info = heapleakJson(["info", dump]);
    const top = heapleakJson(["top", dump, "--by", "class", "--limit", "10"]);
    const [counts] = await runDoc(db, "counts");
    assert.equal(Number(counts.objects), info.objects, "heap_object rows = info's objects");
    assert.equal(Number(counts.refs), info.references, "heap_reference rows = info's references");
    assert.equal(Number(counts.reachable), top.reachable, "heap_dominator rows = top's reachable");
    assert.equal(
      Number(counts.root_targets),
      Object.values(info.roots).reduce((a, b) => a + b, 0),
      "heap_root rows = info's root targets",
    );

    const expected = top.classes.map((c) => [c.key, c.retained]);
    assert.equal(expected.length, 10);
    const fromClasses = await runDoc(db, "top_classes");
    assert.deepEqual(
      fromClasses.map((r) => [r.name, Number(r.retained)]),
      expected,
      "heap_class's top 10 = top --by class",
    );
    assert.deepEqual(
      fromClasses.map((r) => Number(r.reachable_count)),
      top.classes.map((c) => c.count),
    );
    const fromDominators = await runDoc(db, "top_classes_from_dominators");
    assert.deepEqual(
      fromDominators.map((r) => [r.name, Number(r.retained)]),
      expected,
      "the dominator-tree query's top 10 = top --by class",
    );

    assert.ok(leaked.length >= 2);
    for (const address of leaked) {
      const path = heapleakJson(["path", dump, address]);
      const rows = await runDoc(db, "path", { address });
      assert.deepEqual(
        rows.map((r) => r.address),
        [...(path.rootVia ?? []), ...path.path],
        `the path of ${address} = heapleak path`,
      );
      assert.equal(rows[0].root, path.root);
      assert.equal(rows.at(-1).address, address);
      // Searched to the path's length: a shorter path or a missing reference both fail.
      const maxDepth = rows.length - 1;
      const [distance] = await runDoc(db, "root_distance", { address, maxDepth });
      assert.equal(Number(distance.distance), rows.length - 1, `BFS distance of ${address}`);
    }
  } finally {
    db.close();
  }

  // The CSV export: the same rows, read with the doc's column types.
  const csvdir = join(dir, "csv");
  heapleak(["export", dump, csvdir, "--format", "csv"]);
  const db2 = await open();
  try {
    for (const statement of sql.load) {
      const csv = statement
        .replaceAll("OUTDIR", csvdir)
        .replace(/\.jsonl'/, ".csv'")
        .replace("read_json(", "read_csv(")
        .replace("format = 'newline_delimited'", "header = true");
      await db2.query(csv);
    }
    const [counts] = await runDoc(db2, "counts");
    const info = heapleakJson(["info", dump]);
    assert.equal(Number(counts.objects), info.objects);
    assert.equal(Number(counts.refs), info.references);
    const fromClasses = await runDoc(db2, "top_classes");
    const top = heapleakJson(["top", dump, "--by", "class", "--limit", "10"]);
    assert.deepEqual(
      fromClasses.map((r) => [r.name, Number(r.retained)]),
      top.classes.map((c) => [c.key, c.retained]),
    );
  } finally {
    db2.close();
  }
}

test("rbheap fixture: top and path agree with the exported tables", async () => {
  const { dir, cleanup } = scratch();
  try {
    const fixtures = join(root, "tests", "fixtures", "rbheap-3dump");
    const leaked = readFileSync(join(fixtures, "leaked-strings.txt"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("0x"))
      .slice(0, 2);
    await checkExport(join(fixtures, "heap3.jsonl.gz"), leaked, dir);
  } finally {
    cleanup();
  }
});

test("a Ruby 3.1 dump written here: top and path agree", async () => {
  const { dir, cleanup } = scratch();
  try {
    const dump = join(dir, "app.json");
    const program = join(dir, "leak.rb");
    // A holder's Hash of Session objects: the two printed are the ones followed.
    writeFileSync(
      program,
      `require "objspace"
require "json"
class Session; def initialize(n) = (@user = "user-#{n}" * 3; @data = { n => "v" * 40 }); end
class LeakHolder; CACHE = {}; def self.add(n) = CACHE[n] = Session.new(n); end
sessions = (1..400).map { |n| LeakHolder.add(n) }
GC.start
File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }
puts sessions.values_at(7, 300).map { |s| JSON.parse(ObjectSpace.dump(s))["address"] }
`,
    );
    const leaked = run("ruby", [program, dump]).trim().split("\n");
    await checkExport(dump, leaked, dir);
  } finally {
    cleanup();
  }
});

test("heapleak-synth dump: top and path agree", async () => {
  const { dir, cleanup } = scratch();
  try {
    run(HEAPLEAK_SYNTH, ["--out", dir, "--objects", "30000", "--seed", "11", "--single"]);
    const truth = JSON.parse(readFileSync(join(dir, "truth.json"), "utf8"));
    const leaked = [truth.leaked.addresses[0], truth.leaked.addresses.at(-1)];
    await checkExport(join(dir, "B.json"), leaked, dir);
  } finally {
    cleanup();
  }
});

test("bad input: an unknown dump exits 3, an unwritable OUTDIR exits 16 (docs/exit-codes.md)", () => {
  const { dir, cleanup } = scratch();
  try {
    const status = (args) => {
      try {
        run(HEAPLEAK, args, { env, stdio: "pipe" });
        return 0;
      } catch (error) {
        return { status: error.status, stderr: String(error.stderr) };
      }
    };
    const missing = status(["export", join(dir, "nope.json"), join(dir, "out")]);
    assert.equal(missing.status, 3);
    assert.match(missing.stderr, /nope\.json/);
    const fixture = join(root, "tests", "fixtures", "rbheap-3dump", "heap1.jsonl.gz");
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    const unwritable = status(["export", fixture, file]);
    assert.equal(unwritable.status, 16);
    assert.match(unwritable.stderr, /cannot create the directory .*a-file/);
    const usage = status(["export", fixture]);
    assert.equal(usage.status, 2);
    const format = status(["export", fixture, join(dir, "o"), "--format", "parquet"]);
    assert.equal(format.status, 2);
  } finally {
    cleanup();
  }
});
