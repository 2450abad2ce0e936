// engine.test.mjs: the engine the other DuckDB tests rely on reads JSON lines
// and CSV offline (json is built into the npm binding; nothing is fetched).
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { open, scratch } from "./duckdb.mjs";

test("read_json and read_csv work with extension downloads off", async () => {
  const { dir, cleanup } = scratch();
  try {
    writeFileSync(join(dir, "rows.jsonl"), '{"signature":"a","objects":3}\n{"signature":"b","objects":5}\n');
    writeFileSync(join(dir, "rows.csv"), "signature,objects\na,3\nb,5\n");
    const db = await open();
    const fromJson = await db.query(`select sum(objects) as n from read_json('${join(dir, "rows.jsonl")}')`);
    const fromCsv = await db.query(`select max(signature) as s from read_csv('${join(dir, "rows.csv")}')`);
    const autoinstall = await db.query("select current_setting('autoinstall_known_extensions') as v");
    db.close();
    assert.equal(Number(fromJson[0].n), 8);
    assert.equal(fromCsv[0].s, "b");
    assert.equal(autoinstall[0].v, false);
  } finally {
    cleanup();
  }
});
