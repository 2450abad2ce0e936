#!/usr/bin/env node
// leak_rows_shim.mjs: stands between the extension and a heapleakd whose
// `explain` still answers one row per class (before issue 12), so the e2e
// can drive the one-row-per-leak tree today. Every frame passes through
// unchanged except `explain`'s result in the old shape, which is regrouped
// into the new contract from the daemon's own answers: rows sharing their
// first owner become one leak row held by that owner, with the path named
// through `object`, and one allocation site per class (its first sample's).
// Rows without an owner become noise ("unreachable"). An answer already in
// the new shape is passed on as it is, so the shim is inert on a new daemon.
//   leak_rows_shim.mjs HEAPLEAKD [heapleakd args...]
import { spawn } from 'node:child_process';

const [daemonPath, ...daemonArgs] = process.argv.slice(2);
if (!daemonPath) {
  process.stderr.write('usage: leak_rows_shim.mjs HEAPLEAKD [args...]\n');
  process.exit(2);
}
const daemon = spawn(daemonPath, daemonArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
daemon.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
process.stdin.on('end', () => daemon.stdin.end());

/** Calls `onMessage(text)` for each Content-Length frame read from `stream`. */
function frames(stream, onMessage) {
  let buffer = Buffer.alloc(0);
  stream.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const match = /Content-Length:\s*(\d+)/i.exec(buffer.subarray(0, end).toString('ascii'));
      if (!match) throw new Error('leak_rows_shim: a frame without Content-Length');
      const length = Number(match[1]);
      if (buffer.length < end + 4 + length) return;
      onMessage(buffer.subarray(end + 4, end + 4 + length).toString('utf8'));
      buffer = buffer.subarray(end + 4 + length);
    }
  });
}

const frame = (message) => {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
};

const explainIds = new Set();
const pending = new Map();
let nextId = 1;

/** A request of the shim's own to the daemon. */
function ask(method, params) {
  const id = `leak-rows-shim-${nextId++}`;
  daemon.stdin.write(frame({ jsonrpc: '2.0', id, method, params }));
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

frames(process.stdin, (text) => {
  const message = JSON.parse(text);
  if (message.method === 'explain' && message.id !== undefined) explainIds.add(message.id);
  daemon.stdin.write(frame(message));
});

frames(daemon.stdout, (text) => {
  const message = JSON.parse(text);
  const own = pending.get(message.id);
  if (own) {
    pending.delete(message.id);
    if (message.error) own.reject(message.error);
    else own.resolve(message.result);
    return;
  }
  if (explainIds.has(message.id) && message.result) {
    explainIds.delete(message.id);
    regroup(message.result)
      .then((result) => process.stdout.write(frame({ ...message, result })))
      .catch((error) =>
        process.stdout.write(
          frame({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: `leak_rows_shim: ${error?.message ?? error}` } }),
        ),
      );
    return;
  }
  process.stdout.write(frame(message));
});

/** What the new daemon's `name` says: `UserCache` for CLASS:UserCache, `Hash` for a HASH. */
function rubyName(object) {
  if (object.name) return object.name;
  if (object.key?.startsWith('CLASS:')) return object.key.slice('CLASS:'.length);
  if (object.class && !object.class.startsWith('#<')) return object.class;
  return object.key ?? object.type;
}

const isNewShape = (result) => Array.isArray(result.noise) || result.leaks?.some((row) => 'holder' in row || 'signature' in row);

async function regroup(result) {
  if (!Array.isArray(result.leaks) || isNewShape(result)) return result;
  const heap = result.target;
  const nameOf = async (address) => {
    const object = await ask('object', { heap, address }).catch(() => undefined);
    return { object, name: object ? rubyName(object) : address };
  };
  const byHolder = new Map();
  const noise = [];
  for (const row of result.leaks) {
    const holder = row.owners?.[0];
    if (!holder) {
      noise.push({
        ...row,
        holder: null,
        reach: null,
        growth: null,
        objects: [{ key: row.key, name: row.key, count: row.count, memsize: row.memsize }],
        pathNames: [],
        reason: 'unreachable',
        why: 'no GC root reaches these objects: garbage not collected yet',
      });
      continue;
    }
    if (!byHolder.has(holder.address)) byHolder.set(holder.address, { holder, rows: [] });
    byHolder.get(holder.address).rows.push(row);
  }
  const leaks = [];
  for (const { holder, rows } of byHolder.values()) {
    const first = rows[0];
    const names = [];
    for (const address of first.path ?? []) names.push((await nameOf(address)).name);
    const objects = [];
    for (const row of rows) {
      const sample = row.samples[0] ? (await nameOf(row.samples[0])).object : undefined;
      const site = sample?.file ? [{ site: `${sample.file}:${sample.line ?? 0}`, count: row.count }] : undefined;
      objects.push({
        key: row.key,
        name: sample ? rubyName(sample) : row.key,
        count: row.count,
        memsize: row.memsize,
        ...(site ? { sites: site } : {}),
      });
    }
    const holderName = names.at(-1) ?? holder.key;
    const reachName = names.at(-2);
    leaks.push({
      key: `${holderName} in ${reachName ?? `ROOT ${first.root}`}`,
      signature: '0000000000000000',
      holder: { address: holder.address, type: holder.type, class: holder.class, key: holder.key, memsize: holder.memsize, name: holderName },
      reach: reachName ? { kind: 'object', name: reachName, root: first.root } : { kind: 'root', name: first.root, root: first.root },
      growth: null,
      count: rows.reduce((n, r) => n + r.count, 0),
      memsize: rows.reduce((n, r) => n + r.memsize, 0),
      retained: rows.reduce((n, r) => n + (r.retained ?? r.memsize), 0),
      objects: objects.sort((a, b) => b.memsize - a.memsize),
      owners: first.owners,
      root: first.root,
      path: first.path,
      pathNames: [`ROOT ${first.root}`, ...names],
      samples: rows.flatMap((r) => r.samples).slice(0, 20),
    });
  }
  leaks.sort((a, b) => b.retained - a.retained);
  return { ...result, leaks, noise };
}
