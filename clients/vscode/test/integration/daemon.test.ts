// The client against the real heapleakd: lifecycle, every request the
// extension sends, progress order, cancel, errors, crash and restart.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc';
import { CrashInfo, DaemonNotRunningError, HeapleakClient } from '../../src/client';
import { renderDot } from '../../src/graph';
import { ProgressValue } from '../../src/protocol';
import { Dumps, daemonBinary, makeDumps } from '../support/daemon_env';

const binary = daemonBinary();
let dumps: Dumps;

before(() => {
  dumps = makeDumps();
});
after(() => dumps?.cleanup());

function newClient(extra: Partial<ConstructorParameters<typeof HeapleakClient>[0]> = {}): { client: HeapleakClient; stderr: string[]; log: string[] } {
  const stderr: string[] = [];
  const log: string[] = [];
  const client = new HeapleakClient({ command: binary, onStderr: (t) => stderr.push(t), log: (l) => log.push(l), ...extra });
  return { client, stderr, log };
}

async function expectError(promise: Promise<unknown>, code: number, reason?: string): Promise<ResponseError<unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, `expected a ResponseError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (reason) assert.equal((error.data as { reason?: string })?.reason, reason, error.message);
    return error;
  }
  assert.fail(`expected error ${code}`);
}

async function until(probe: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) assert.fail('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function once<T>(subscribe: (listener: (value: T) => void) => { dispose(): void }): Promise<T> {
  return new Promise((resolve) => {
    const subscription = subscribe((value) => {
      subscription.dispose();
      resolve(value);
    });
  });
}

describe('heapleakd over stdio', () => {
  const { client, stderr } = newClient();
  const ids: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };

  after(() => client.stop());

  test('initialize reports the server and its methods', async () => {
    const init = await client.start();
    assert.equal(init.serverInfo.name, 'heapleakd');
    assert.match(init.serverInfo.version, /^\d+\.\d+/);
    assert.ok(client.running);
    assert.ok(client.pid && client.pid > 0);
    // a second start() is the same daemon
    await client.start();
    assert.equal((await client.start()).serverInfo.version, init.serverInfo.version);
  });

  test('loadHeap reports $/progress begin, reports, end, and only then replies', async () => {
    const events: string[] = [];
    const percentages: number[] = [];
    const summary = await client
      .loadHeap({ path: dumps.a, name: 'A.json' }, (value: ProgressValue) => {
        events.push(value.kind);
        if (typeof value.percentage === 'number') percentages.push(value.percentage);
      })
      .then((s) => {
        events.push('reply');
        return s;
      });
    assert.equal(events[0], 'begin');
    assert.deepEqual(events.slice(-2), ['end', 'reply']);
    assert.ok(events.slice(1, -2).every((k) => k === 'report'), events.join(','));
    assert.deepEqual([...percentages].sort((x, y) => x - y), percentages, 'percentages rise');
    assert.ok(percentages.every((p) => p >= 0 && p <= 100));
    assert.match(summary.heap, /^h\d+$/);
    assert.equal(summary.name, 'A.json');
    assert.equal(summary.path, dumps.a);
    assert.ok(summary.objects > 50_000, `objects ${summary.objects}`);
    assert.ok(summary.residentBytes > 0);
    assert.equal(summary.traced, true);
    assert.equal(summary.brokenLines, 0);
    ids.a = summary.heap;
    ids.b = (await client.loadHeap({ path: dumps.b, name: 'B.json' })).heap;
    ids.c = (await client.loadHeap({ path: dumps.c, name: 'C.json' })).heap;
  });

  test('listHeaps lists them in load order', async () => {
    const { heaps } = await client.listHeaps();
    assert.deepEqual(
      heaps.map((h) => [h.heap, h.name]),
      [
        [ids.a, 'A.json'],
        [ids.b, 'B.json'],
        [ids.c, 'C.json'],
      ],
    );
  });

  test('stats: the three-way diff finds the leaked Users, program groups by count, VM internals last', async () => {
    const result = await client.stats({ baseline: ids.a, target: ids.b, later: ids.c, groupBy: 'class', samples: 50 });
    assert.equal(result.threeWay, true);
    // Groups that are mostly VM internals rank after the program's own (docs/protocol.md, stats).
    const internal = result.groups.map((g) => g.vmInternal === true);
    assert.deepEqual([...internal].sort((x, y) => Number(x) - Number(y)), internal);
    for (const part of [false, true]) {
      const counts = result.groups.filter((_, k) => internal[k] === part).map((g) => g.count);
      assert.deepEqual([...counts].sort((x, y) => y - x), counts);
    }
    const user = result.groups.find((g) => g.key === 'User');
    assert.ok(user, JSON.stringify(result.groups.map((g) => g.key)));
    assert.equal(user.count, dumps.truth.leak.by_type.User);
    assert.equal(user.samples.length, 50);
    assert.ok(user.samples.every((a) => /^0x[0-9a-f]+$/.test(a)));
    assert.ok(result.total.count >= user.count);
  });

  test('root: the common retainer of leaked Users is the truth, and its dot renders', async () => {
    const stats = await client.stats({ baseline: ids.a, target: ids.b, later: ids.c, samples: 10 });
    const user = stats.groups.find((g) => g.key === 'User')!;
    const result = await client.root({ heap: ids.b, addresses: user.samples, maxNodes: 200 });
    assert.equal(result.retainer, dumps.truth.root.retainer.address);
    assert.equal(result.distance, dumps.truth.root.distance);
    assert.deepEqual(result.unknown, []);
    assert.ok(result.nodes.some((n) => n.role === 'retainer' && n.address === result.retainer));
    assert.equal(result.nodes.filter((n) => n.sample).length, 10);
    assert.ok(result.edges.some((e) => e.from === result.retainer));
    assert.match(result.dot, /^digraph leak \{/m);
    const svg = await renderDot(result.dot, 200);
    assert.match(svg, new RegExp(`<title>${result.retainer}</title>`));
  });

  test('pathToRoot, object, referrers, references', async () => {
    const sample = dumps.truth.root.samples[0];
    const p = await client.pathToRoot(ids.b, sample);
    assert.equal(p.path.at(-1), sample);
    assert.ok(p.path.includes(dumps.truth.root.retainer.address));
    assert.ok(p.root.length > 0);
    assert.equal(p.objects.length, p.path.length);

    const o = await client.object(ids.b, sample);
    assert.equal(o.address, sample);
    assert.equal(o.class, 'User');
    assert.equal(o.record.address, sample);
    assert.ok(o.file && o.line, 'allocation site of a traced dump');
    assert.ok(o.referrersCount >= 1);

    const refs = await client.referrers({ heap: ids.b, address: sample, offset: 0, limit: 10 });
    assert.equal(refs.address, sample);
    assert.ok(refs.items.some((i) => i.address === dumps.truth.root.retainer.address));
    assert.equal(refs.total, o.referrersCount);

    const hash = dumps.truth.root.retainer.address;
    const page1 = await client.references({ heap: ids.b, address: hash, offset: 0, limit: 5 });
    assert.equal(page1.items.length, 5);
    assert.ok(page1.total > 5);
    const page2 = await client.references({ heap: ids.b, address: hash, offset: 5, limit: 5 });
    assert.equal(page2.offset, 5);
    assert.notDeepEqual(page2.items.map((i) => i.address), page1.items.map((i) => i.address));
  });

  test('domain errors carry data.reason; bad params name the field', async () => {
    await expectError(client.loadHeap({ path: path.join(dumps.dir, 'nope.json') }), -32803, 'fileNotFound');
    const text = path.join(dumps.dir, 'notes.json');
    fs.writeFileSync(text, 'this is not a heap dump\n');
    await expectError(client.loadHeap({ path: text }), -32803, 'notAHeapDump');
    await expectError(client.object('h999', '0x1'), -32803, 'unknownHeap');
    await expectError(client.object(ids.b, '0x1'), -32803, 'unknownAddress');
    const bad = await expectError(client.request('loadHeap', { path: 5 }), -32602);
    assert.match(bad.message, /params\.path/);
  });

  test('owner/explain: probe agrees with a real request', async (t) => {
    const samples = dumps.truth.root.samples;
    if (await client.probe('owner')) {
      const answer = await client.owner(ids.b, samples);
      assert.equal(typeof answer, 'object');
      assert.equal(answer.heap, ids.b);
    } else {
      t.diagnostic('this heapleakd has no owner');
      await expectError(client.request('owner', { heap: ids.b, addresses: samples }), -32601);
    }
    if (await client.probe('explain')) {
      const answer = await client.explain({ baseline: ids.a, target: ids.b, later: ids.c });
      assert.equal(typeof answer, 'object');
    } else {
      t.diagnostic('this heapleakd has no explain');
      await expectError(client.request('explain', { baseline: ids.a, target: ids.b, later: ids.c }), -32601);
    }
  });

  test('unloadHeap frees the heap', async () => {
    const extra = await client.loadHeap({ path: dumps.a, name: 'again' });
    const answer = await client.unloadHeap(extra.heap);
    assert.equal(answer.heap, extra.heap);
    assert.equal(answer.unloaded, true);
    const { heaps } = await client.listHeaps();
    assert.ok(!heaps.some((h) => h.heap === extra.heap));
    await expectError(client.unloadHeap(extra.heap), -32803, 'unknownHeap');
  });

  test('stderr goes to the sink (the output channel); heapleak.daemonArgs reach the daemon', async () => {
    const logged = newClient({ args: ['--log=info'] });
    try {
      await logged.client.listHeaps();
      await until(() => /<-- listHeaps\(\d+\)/.test(logged.stderr.join('')));
    } finally {
      await logged.client.stop();
    }
    assert.equal(typeof stderr.join(''), 'string');
  });
});

describe('cancel', () => {
  test('$/cancelRequest during a load answers -32800 and leaves no heap', async () => {
    const big = path.join(dumps.dir, 'big.json');
    fs.writeFileSync(big, Buffer.concat([fs.readFileSync(dumps.a), fs.readFileSync(dumps.b), fs.readFileSync(dumps.c), fs.readFileSync(dumps.a), fs.readFileSync(dumps.b)]));
    const { client } = newClient();
    try {
      await client.start();
      const source = new CancellationTokenSource();
      const kinds: string[] = [];
      const load = client.loadHeap(
        { path: big, name: 'big' },
        (value) => {
          kinds.push(value.kind);
          if (value.kind === 'begin') source.cancel();
        },
        source.token,
      );
      await expectError(load, -32800);
      assert.equal(kinds[0], 'begin');
      const { heaps } = await client.listHeaps();
      assert.deepEqual(heaps, []);
      // the daemon still serves
      const ok = await client.loadHeap({ path: dumps.a });
      assert.ok(ok.objects > 0);
    } finally {
      await client.stop();
    }
  });
});

describe('lifecycle', () => {
  test('stop: shutdown + exit ends the process with 0', async () => {
    const { client } = newClient();
    await client.start();
    const pid = client.pid!;
    await client.stop();
    assert.equal(client.running, false);
    assert.throws(() => process.kill(pid, 0));
  });

  test('a crash rejects what was pending, restarts the daemon, and it serves again', async () => {
    const { client, log } = newClient();
    try {
      await client.start();
      await client.loadHeap({ path: dumps.a, name: 'A.json' });
      const oldPid = client.pid!;
      const crashed = once<CrashInfo>((l) => client.onDidCrash(l));
      const restarted = once((l) => client.onDidStart(l));
      const pending = client.pathToRoot('h1', '0x1').catch((e) => e);
      process.kill(oldPid, 'SIGKILL');
      const info = await crashed;
      assert.equal(info.signal, 'SIGKILL');
      assert.equal(info.restarting, true);
      assert.ok(await pending, 'the pending request settled');
      await restarted;
      assert.notEqual(client.pid, oldPid);
      const { heaps } = await client.listHeaps();
      assert.deepEqual(heaps, [], 'a new daemon has no heaps');
      assert.ok((await client.loadHeap({ path: dumps.a })).objects > 0);
      assert.ok(log.some((l) => /exited unexpectedly/.test(l)));
    } finally {
      await client.stop();
    }
  });

  test('too many crashes: no more automatic restarts', async () => {
    const { client } = newClient({ maxRestarts: 0 });
    try {
      await client.start();
      const crashed = once<CrashInfo>((l) => client.onDidCrash(l));
      process.kill(client.pid!, 'SIGKILL');
      assert.equal((await crashed).restarting, false);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(client.running, false);
      // an explicit request starts it again
      assert.deepEqual((await client.listHeaps()).heaps, []);
    } finally {
      await client.stop();
    }
  });

  test('a missing binary is a clear error', async () => {
    const client = new HeapleakClient({ command: path.join(dumps.dir, 'no-such-heapleakd') });
    await assert.rejects(client.start(), (e: unknown) => e instanceof DaemonNotRunningError && /no-such-heapleakd/.test(e.message));
  });

  test('heapleak.trace.server: messages are traced to the log', async () => {
    const { client, log } = newClient({ trace: 'verbose' });
    try {
      await client.start();
      await client.listHeaps();
      const text = log.join('\n');
      assert.match(text, /Sending request 'listHeaps/);
      assert.match(text, /Received response 'listHeaps/);
    } finally {
      await client.stop();
    }
  });
});
