// duckdb.mjs: the one way the DuckDB tests open the real engine, and the paths
// of the heapleak binaries CTest passes in (HEAPLEAK, HEAPLEAK_SYNTH).
// Extensions are never downloaded: json and parquet are built into the npm
// binding, and autoinstall is off so a missing one fails instead of fetching.
import { DuckDBInstance } from "@duckdb/node-api";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const HEAPLEAK = process.env.HEAPLEAK ?? "heapleak";
export const HEAPLEAK_SYNTH = process.env.HEAPLEAK_SYNTH ?? "heapleak-synth";

// open(): a fresh in-memory database; query(sql) resolves to plain row objects
// (BIGINTs come back as BigInt: compare with Number(...) or 1n).
export async function open() {
  const instance = await DuckDBInstance.create(":memory:", {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "true",
  });
  const connection = await instance.connect();
  return {
    async query(sql) {
      const reader = await connection.runAndReadAll(sql);
      return reader.getRowObjects();
    },
    close() {
      connection.closeSync();
      instance.closeSync?.();
    },
  };
}

// run(bin, args): the program's stdout; throws with its stderr on failure.
export function run(bin, args, options = {}) {
  return execFileSync(bin, args, { encoding: "utf8", maxBuffer: 1 << 30, ...options });
}

// scratch(): a temporary directory, removed by the returned cleanup.
export function scratch(prefix = "heapleak-duckdb-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
