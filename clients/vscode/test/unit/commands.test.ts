import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc';
import { Commands, DaemonApi, Settings, progressAdapter, uniqueName } from '../../src/commands';
import { GroupNode, HeapStore, LeakNode, ObjectNode, SiteNode, TreeModel, TreeNode } from '../../src/model';
import { HeapSummary, ProgressValue } from '../../src/protocol';
import * as fx from '../support/fixtures';
import { FakeUi } from '../support/fake_ui';

const settings: Settings = { maxNodes: 200, retainerSamples: 2, samples: 50, minSamples: 0, groupBy: 'class' };

class FakeDaemon implements DaemonApi {
  calls: { method: string; params: unknown }[] = [];
  loadError: ((path: string) => unknown) | undefined;
  /** When set, every load waits for it (then sees a Cancel made meanwhile). */
  hold: Promise<void> | undefined;
  /** When set, the load of `path` waits for what it returns. */
  holdFor: ((path: string) => Promise<unknown>) | undefined;
  ownerError: unknown;
  private next = 1;
  async loadHeap(params: { path: string; name?: string }, onProgress?: (v: ProgressValue) => void, token?: { isCancellationRequested: boolean }) {
    this.calls.push({ method: 'loadHeap', params });
    onProgress?.({ kind: 'begin', percentage: 0, title: 'Loading' });
    onProgress?.({ kind: 'report', percentage: 40, message: '8 of 18 MiB' });
    await this.hold;
    await this.holdFor?.(params.path);
    if (token?.isCancellationRequested) throw new ResponseError(-32800, 'cancelled');
    const error = this.loadError?.(params.path);
    if (error) throw error;
    onProgress?.({ kind: 'end' });
    return { ...fx.heap(`h${this.next++}`, params.name ?? 'x'), path: params.path };
  }
  async unloadHeap(heap: string) {
    this.calls.push({ method: 'unloadHeap', params: { heap } });
    return { heap, unloaded: true };
  }
  async stats(params: object) {
    this.calls.push({ method: 'stats', params });
    return fx.stats;
  }
  async root(params: object) {
    this.calls.push({ method: 'root', params });
    return fx.root;
  }
  async pathToRoot(heap: string, address: string) {
    this.calls.push({ method: 'pathToRoot', params: { heap, address } });
    return fx.path;
  }
  async object(heap: string, address: string) {
    this.calls.push({ method: 'object', params: { heap, address } });
    return { ...fx.object, address };
  }
  async referrers(params: { address: string }) {
    return { address: params.address, total: 0, offset: 0, items: [] };
  }
  async owner(heap: string, addresses: string[]) {
    this.calls.push({ method: 'owner', params: { heap, addresses } });
    if (this.ownerError) throw this.ownerError;
    return { owner: 'UserCache' };
  }
  /** What explain answers; by default the method is missing (-32601). */
  explainAnswer: (() => Record<string, unknown>) | undefined;
  async explain(params: object): Promise<Record<string, unknown>> {
    this.calls.push({ method: 'explain', params });
    if (!this.explainAnswer) throw new ResponseError(-32601, 'method not found: explain');
    return this.explainAnswer();
  }
  async probe(method: string) {
    return method === 'owner';
  }
}

function setup() {
  const ui = new FakeUi();
  const daemon = new FakeDaemon();
  const store = new HeapStore();
  return { ui, daemon, store, commands: new Commands(ui, daemon, store, () => settings) };
}

async function loadThree(c: ReturnType<typeof setup>): Promise<HeapSummary[]> {
  return c.commands.loadHeaps(['/d/A.json', '/d/B.json', '/d/C.json']);
}

test('progressAdapter turns percentages into increments and finishes at 100', () => {
  const reports: { message?: string; increment?: number }[] = [];
  const sink = progressAdapter((r) => reports.push(r));
  sink({ kind: 'begin', percentage: 0 });
  sink({ kind: 'report', percentage: 22, message: '4 of 17 MiB' });
  sink({ kind: 'report', percentage: 20 });
  sink({ kind: 'report', percentage: 68, message: '12 of 17 MiB' });
  sink({ kind: 'end' });
  assert.deepEqual(reports, [{ message: '4 of 17 MiB', increment: 22 }, { message: '12 of 17 MiB', increment: 46 }, { increment: 32 }]);
});

test('uniqueName keeps file names and disambiguates repeats', () => {
  assert.equal(uniqueName('/a/B.json', []), 'B.json');
  assert.equal(uniqueName('/b/B.json', ['B.json', 'B.json (2)']), 'B.json (3)');
});

test('loading from the explorer: one progress notification per file, heaps in the store', async () => {
  const c = setup();
  const loaded = await loadThree(c);
  assert.deepEqual(loaded.map((h) => h.heap), ['h1', 'h2', 'h3']);
  assert.deepEqual(c.store.heaps.map((h) => h.name), ['A.json', 'B.json', 'C.json']);
  assert.deepEqual(c.ui.progresses.map((p) => p.title), ['Heapleak: loading A.json', 'Heapleak: loading B.json', 'Heapleak: loading C.json']);
  assert.deepEqual(c.ui.progresses[0].reports, [{ message: '8 of 18 MiB', increment: 40 }, { increment: 60 }]);
  assert.deepEqual(c.daemon.calls[0], { method: 'loadHeap', params: { path: '/d/A.json', name: 'A.json' } });
  assert.equal(c.ui.focused, 1);
  assert.deepEqual(c.ui.messages.at(-1), { level: 'info', message: 'Heapleak: 3 heaps loaded. Run the leak diff next.', actions: ['Run Leak Diff'] });
});

test('loading with no paths asks with a file picker; nothing chosen is a no-op', async () => {
  const c = setup();
  assert.deepEqual(await c.commands.loadHeaps(), []);
  c.ui.files = ['/d/A.json'];
  assert.equal((await c.commands.loadHeaps()).length, 1);
});

test('a failed load reports the reason and goes on with the next file', async () => {
  const c = setup();
  c.daemon.loadError = (p) => (p.endsWith('B.json') ? new ResponseError(-32803, 'not a heap dump: /d/B.json line 1', { reason: 'notAHeapDump' }) : undefined);
  const loaded = await loadThree(c);
  assert.deepEqual(loaded.map((h) => h.name), ['A.json', 'C.json']);
  assert.deepEqual(c.ui.errors(), ['Heapleak: cannot load B.json: not a heap dump: /d/B.json line 1 (notAHeapDump)']);
});

test('Cancel on a progress notification stops every load still running; later files are not sent', async () => {
  const c = setup();
  c.ui.onProgress = (index, source) => {
    if (index === 1) source.cancel();
  };
  // A is on its way when B's notification is cancelled: it stops too; B and C never go out.
  const loaded = await loadThree(c);
  assert.deepEqual(loaded, []);
  assert.deepEqual(c.daemon.calls.map((call) => (call.params as { path: string }).path), ['/d/A.json']);
  assert.equal(c.store.heaps.length, 0);
  assert.deepEqual(c.ui.messages.map((m) => m.message).slice(0, 1), ['Heapleak: loading A.json, B.json, C.json cancelled.']);
  assert.deepEqual(c.ui.errors(), []);
});

test('the files are all sent at once; a Cancel while they load stops all of them', async () => {
  const c = setup();
  let release = () => {};
  c.daemon.hold = new Promise<void>((resolve) => (release = resolve));
  const loading = loadThree(c);
  await new Promise((resolve) => setImmediate(resolve));
  // All three requests are out before any answer: heapleakd runs them side by side.
  assert.equal(c.daemon.calls.length, 3);
  c.ui.progresses[2].source.cancel();
  release();
  assert.deepEqual(await loading, []);
  assert.equal(c.store.heaps.length, 0);
  assert.deepEqual(c.ui.messages.map((m) => m.message).slice(0, 1), ['Heapleak: loading A.json, B.json, C.json cancelled.']);
});

test('loads that end out of order still land in the tree in the order given', async () => {
  const c = setup();
  const releases: (() => void)[] = [];
  c.daemon.holdFor = () => new Promise<void>((resolve) => releases.push(resolve));
  const loading = loadThree(c);
  await new Promise((resolve) => setImmediate(resolve));
  for (const release of [...releases].reverse()) release();
  const loaded = await loading;
  assert.deepEqual(loaded.map((h) => h.name), ['A.json', 'B.json', 'C.json']);
  assert.deepEqual(c.store.heaps.map((h) => h.name), ['A.json', 'B.json', 'C.json']);
});

test('run leak diff: baseline, target, later from quick picks; result in the tree', async () => {
  const c = setup();
  await loadThree(c);
  const result = await c.commands.runLeakDiff();
  assert.equal(result, fx.stats);
  assert.deepEqual(c.ui.pickLabels, [['A.json', 'B.json', 'C.json'], ['B.json', 'C.json'], ['C.json', '(none)']]);
  assert.match(c.ui.pickTitles[0], /baseline/);
  assert.deepEqual(c.daemon.calls.at(-1), { method: 'stats', params: { baseline: 'h1', target: 'h2', later: 'h3', groupBy: 'class', samples: 50 } });
  assert.equal(c.store.diffFor('h2')?.result, fx.stats);
  assert.equal(c.store.diffFor('h2')?.seq, 1);
  assert.match(c.ui.messages.at(-1)!.message, /2,105 leaked objects \(108\.1 KiB\) in 2 groups; most: STRING ×1,805/);
});

test('run leak diff with "(none)" as later is a two-dump diff; Escape anywhere stops', async () => {
  const c = setup();
  await loadThree(c);
  c.ui.picks = [(items) => items[2].value, (items) => items[0].value, (items) => items.at(-1)!.value];
  await c.commands.runLeakDiff();
  assert.deepEqual(c.daemon.calls.at(-1)!.params, { baseline: 'h3', target: 'h1', groupBy: 'class', samples: 50 });
  const before = c.daemon.calls.length;
  c.ui.picks = [() => undefined];
  assert.equal(await c.commands.runLeakDiff(), undefined);
  assert.equal(c.daemon.calls.length, before);
});

test('run leak diff with fewer than two heaps explains what to do', async () => {
  const c = setup();
  assert.equal(await c.commands.runLeakDiff(), undefined);
  assert.match(c.ui.errors()[0], /load two heap dumps first/);
});

test('find retainer of a selected group: root with its samples, graph with the retainer', async () => {
  const c = setup();
  await loadThree(c);
  await c.commands.runLeakDiff();
  const group: GroupNode = { kind: 'group', id: 'g', heap: 'h2', group: fx.stats.groups[1] };
  const result = await c.commands.findRetainer(group, [group]);
  assert.equal(result, fx.root);
  // a group sends heapleak.retainer.samples of its samples
  assert.deepEqual(c.daemon.calls.at(-1), { method: 'root', params: { heap: 'h2', addresses: fx.stats.groups[1].samples.slice(0, 2), maxNodes: 200 } });
  const view = c.ui.graphs[0];
  assert.equal(view.title, 'Retainer of User');
  assert.equal(view.heap, 'h2');
  assert.match(view.headline, /^Retainer: 0x7fb34b918f38 HASH/);
  assert.match(view.svg, /<title>0x7fb34b918f38<\/title>/);
});

test('find retainer with no selection picks a leak group; objects of two heaps are refused', async () => {
  const c = setup();
  await loadThree(c);
  await c.commands.findRetainer();
  assert.match(c.ui.errors()[0], /run the leak diff first/);
  await c.commands.runLeakDiff();
  c.ui.picks = [(items) => items.find((i) => i.label === 'User')!.value];
  await c.commands.findRetainer();
  assert.deepEqual(c.ui.pickLabels.at(-1), ['STRING', 'User']);
  assert.deepEqual((c.daemon.calls.at(-1)!.params as { addresses: string[] }).addresses, fx.stats.groups[1].samples.slice(0, 2));
  // objects selected one by one are all sent
  const picked = fx.stats.groups[1].samples.map((address, k): ObjectNode => ({ kind: 'object', id: `o${k}`, heap: 'h2', address, role: 'sample' }));
  await c.commands.findRetainer(picked[0], picked);
  assert.deepEqual((c.daemon.calls.at(-1)!.params as { addresses: string[] }).addresses, fx.stats.groups[1].samples);
  const a: ObjectNode = { kind: 'object', id: 'a', heap: 'h2', address: '0x1', role: 'sample' };
  const b: ObjectNode = { kind: 'object', id: 'b', heap: 'h3', address: '0x2', role: 'sample' };
  assert.equal(await c.commands.findRetainer(a, [a, b]), undefined);
  assert.match(c.ui.errors().at(-1)!, /one heap/);
});

test('a graph over heapleak.graph.maxNodes is not drawn and says which setting', async () => {
  const ui = new FakeUi();
  const store = new HeapStore();
  const commands = new Commands(ui, new FakeDaemon(), store, () => ({ ...settings, maxNodes: 3 }));
  const node: ObjectNode = { kind: 'object', id: 'a', heap: 'h2', address: '0x7fb34b7a80b8', role: 'sample' };
  await commands.findRetainer(node);
  assert.equal(ui.graphs.length, 0);
  assert.match(ui.errors()[0], /more than heapleak\.graph\.maxNodes \(3\)/);
  assert.deepEqual(ui.messages[0].actions, ['Open Settings']);
});

test('path to root and inspect: tree node or heap + typed address', async () => {
  const c = setup();
  await loadThree(c);
  const node: ObjectNode = { kind: 'object', id: 'a', heap: 'h2', address: '0x7fb34b7a80b8', role: 'sample' };
  await c.commands.pathToRoot(node);
  assert.equal(c.ui.graphs[0].kind, 'path');
  assert.equal(c.ui.graphs[0].headline, 'Path from GC root "vm" to 0x7fb34b7a80b8: 3 hops');
  const inspected = await c.commands.inspectObject(node);
  assert.equal(inspected?.address, '0x7fb34b7a80b8');
  assert.match(c.ui.objects[0].text, /^\/\/ heapleak: object 0x7fb34b7a80b8 in heap B\.json \(h2\)/);
  c.ui.picks = [(items) => items[2].value];
  c.ui.inputs = [' 0xabc '];
  await c.commands.inspectObject();
  assert.deepEqual(c.daemon.calls.at(-1), { method: 'object', params: { heap: 'h3', address: '0xabc' } });
  // the webview's click message carries {heap, address}
  await c.commands.inspectObject({ heap: 'h2', address: '0xdef' });
  assert.deepEqual(c.daemon.calls.at(-1), { method: 'object', params: { heap: 'h2', address: '0xdef' } });
});

test('open allocation site: the workspace file at the line, or a warning', async () => {
  const c = setup();
  c.ui.existing.add('/ws/tests/gen/leakgen.rb');
  const withBrief: ObjectNode = { kind: 'object', id: 'r', heap: 'h2', address: '0x1', role: 'referrer', brief: { address: '0x1', type: 'HASH', file: 'tests/gen/leakgen.rb', line: 88 } };
  assert.equal(await c.commands.openAllocationSite(withBrief), '/ws/tests/gen/leakgen.rb');
  assert.deepEqual(c.ui.opened, [{ file: '/ws/tests/gen/leakgen.rb', line: 88 }]);
  const sample: ObjectNode = { kind: 'object', id: 's', heap: 'h2', address: '0x7fb34b7a80b8', role: 'sample' };
  await c.commands.openAllocationSite(sample); // no brief: asks the daemon
  assert.deepEqual(c.daemon.calls.at(-1), { method: 'object', params: { heap: 'h2', address: '0x7fb34b7a80b8' } });
  assert.deepEqual(c.ui.opened[1], { file: '/ws/tests/gen/leakgen.rb', line: 120 });
  c.ui.existing.clear();
  assert.equal(await c.commands.openAllocationSite(withBrief), undefined);
  assert.match(c.ui.messages.at(-1)!.message, /tests\/gen\/leakgen\.rb:88 is not in this workspace/);
});

test('heapleak.pathMappings comes first; then the old lookups; gems and outside paths are not the program', async () => {
  const ui = new FakeUi();
  const store = new HeapStore();
  const mapped = { ...settings, pathMappings: { '/app/': '${workspaceFolder}/' } };
  const commands = new Commands(ui, new FakeDaemon(), store, () => mapped);
  ui.existing.add('/ws/lib/price_calculator.rb');
  ui.existing.add('/ws/app/lib/price_calculator.rb');
  // mapped: /app/lib/... -> /ws/lib/..., although /ws/app/lib/... (the tail match) exists too
  assert.equal(await commands.resolveSite('/app/lib/price_calculator.rb'), '/ws/lib/price_calculator.rb');
  assert.deepEqual(await commands.locateSite('/app/lib/price_calculator.rb'), { resolved: '/ws/lib/price_calculator.rb', kind: 'app' });
  // without the mapping, the longest tail under the folder
  const plain = new Commands(ui, new FakeDaemon(), store, () => settings);
  assert.equal(await plain.resolveSite('/app/lib/price_calculator.rb'), '/ws/app/lib/price_calculator.rb');
  // a mapping to a missing file falls back to the old lookups
  ui.existing.delete('/ws/lib/price_calculator.rb');
  assert.equal(await commands.resolveSite('/app/lib/price_calculator.rb'), '/ws/app/lib/price_calculator.rb');
  // a gem is a gem wherever it resolves; an absolute path outside /ws is outside
  ui.existing.add('/usr/local/bundle/gems/rack-2.2.8/lib/rack/request.rb');
  assert.equal((await commands.locateSite('/usr/local/bundle/gems/rack-2.2.8/lib/rack/request.rb')).kind, 'gem');
  ui.existing.add('/etc/app.rb');
  assert.deepEqual(await commands.locateSite('/etc/app.rb'), { resolved: '/etc/app.rb', kind: 'outside' });
});

test('unload from the tree removes the heap and its diff', async () => {
  const c = setup();
  await loadThree(c);
  await c.commands.runLeakDiff();
  const node: TreeNode = { kind: 'heap', id: 'heap:h3', heap: 'h3' };
  assert.equal(await c.commands.unloadHeap(node), true);
  assert.deepEqual(c.daemon.calls.at(-1), { method: 'unloadHeap', params: { heap: 'h3' } });
  assert.deepEqual(c.store.heaps.map((h) => h.heap), ['h1', 'h2']);
  assert.equal(c.store.diffs.length, 0);
});

test('optional methods: probed into context keys; -32601 hides the command', async () => {
  const c = setup();
  await c.commands.probeOptional();
  assert.equal(c.ui.contexts.get('heapleak.ownerAvailable'), true);
  assert.equal(c.ui.contexts.get('heapleak.explainAvailable'), false);
  await loadThree(c);
  await c.commands.runLeakDiff();
  const group: GroupNode = { kind: 'group', id: 'g', heap: 'h2', group: fx.stats.groups[1] };
  assert.deepEqual(await c.commands.owner(group), { owner: 'UserCache' });
  assert.equal(c.ui.texts[0].language, 'json');
  c.daemon.ownerError = new ResponseError(-32601, 'method not found: owner');
  assert.equal(await c.commands.owner(group), undefined);
  assert.equal(c.ui.contexts.get('heapleak.ownerAvailable'), false);
  assert.match(c.ui.messages.at(-1)!.message, /no "owner" request yet/);
  assert.equal(await c.commands.explain(), undefined);
  assert.ok(c.commands.missing.has('explain'));
});

test('after a crash the store is emptied and "Reload Heaps" loads the same files', async () => {
  const c = setup();
  await loadThree(c);
  c.ui.actions = [undefined, 'Reload Heaps'];
  const noop = await c.commands.handleCrash({ code: null, signal: 'SIGKILL', restarting: true, stderrTail: '' });
  assert.equal(noop, undefined);
  assert.equal(c.store.heaps.length, 0);
  assert.match(c.ui.messages.at(-1)!.message, /crashed \(signal SIGKILL\) and was restarted\. 3 loaded heaps were lost\./);
  // nothing loaded now: no action offered
  const again = await c.commands.handleCrash({ code: 3, signal: null, restarting: true, stderrTail: '' });
  assert.equal(again, undefined);
  assert.deepEqual(c.ui.messages.at(-1)!.actions, []);
});

test('"Reload Heaps" after a crash reloads the paths that were loaded', async () => {
  const c = setup();
  await loadThree(c);
  c.ui.actions = ['Reload Heaps'];
  const reloaded = await c.commands.handleCrash({ code: 1, signal: null, restarting: true, stderrTail: '' });
  assert.deepEqual(reloaded?.map((h) => h.path), ['/d/A.json', '/d/B.json', '/d/C.json']);
  assert.deepEqual(c.store.heaps.map((h) => h.path), ['/d/A.json', '/d/B.json', '/d/C.json']);
});

test('run leak diff on a daemon with one row per leak: explain only, its rows in the tree and in the pickers', async () => {
  const c = setup();
  c.daemon.explainAnswer = () => fx.explainLeaks;
  await loadThree(c);
  const result = await c.commands.runLeakDiff();
  const asked = c.daemon.calls.filter((call) => call.method === 'explain' || call.method === 'stats');
  assert.deepEqual(asked, [{ method: 'explain', params: { baseline: 'h1', target: 'h2', later: 'h3', groupBy: 'class', samples: 50 } }]);
  const diff = c.store.diffFor('h2')!;
  assert.deepEqual(diff.explain, fx.explainLeaks);
  assert.deepEqual(result?.groups.map((g) => [g.key, g.count]), [
    ['Array in ActiveSupport::Notifications::Fanout@string_subscribers["render.app"]', 3000],
    ['Hash in App.@request_log', 1500],
  ]);
  assert.equal(
    c.ui.messages.at(-1)!.message,
    'Heapleak: 4,540 leaked objects (357.0 KiB) in 2 leaks; first: Array in ActiveSupport::Notifications::Fanout@string_subscribers["render.app"] ×3,000; 1 probably not leaks',
  );
  // the tree shows leak rows
  const model = new TreeModel(c.store, c.daemon);
  const [, h2] = await model.children();
  assert.deepEqual((await model.children(h2)).map((n) => n.kind), ['info', 'leak', 'leak', 'section']);
  // Find Common Retainer on a leak row sends its samples (heapleak.retainer.samples of them)
  const leak: LeakNode = { kind: 'leak', id: 'l', heap: 'h2', row: fx.explainLeaks.leaks[1], noise: false };
  await c.commands.findRetainer(leak, [leak]);
  assert.deepEqual(c.daemon.calls.at(-1), { method: 'root', params: { heap: 'h2', addresses: fx.explainLeaks.leaks[1].samples, maxNodes: 200 } });
  assert.equal(c.ui.graphs.at(-1)!.title, 'Retainer of Hash in App.@request_log');
  // and the palette's picker lists the leaks
  c.ui.picks = [(items) => items[0].value];
  await c.commands.findRetainer();
  assert.deepEqual(c.ui.pickLabels.at(-1), ['Array in ActiveSupport::Notifications::Fanout@string_subscribers["render.app"]', 'Hash in App.@request_log']);
});

test('run leak diff on a daemon whose explain has one row per class: falls back to stats and the group tree', async () => {
  const c = setup();
  c.daemon.explainAnswer = () => fx.explainPerClass;
  await loadThree(c);
  const result = await c.commands.runLeakDiff();
  assert.deepEqual(
    c.daemon.calls.filter((call) => call.method === 'explain' || call.method === 'stats').map((call) => call.method),
    ['explain', 'stats'],
  );
  assert.equal(result, fx.stats);
  assert.equal(c.store.diffFor('h2')?.explain, undefined);
  assert.match(c.ui.logs.join('\n'), /one row per class/);
  const model = new TreeModel(c.store, c.daemon);
  const [, h2] = await model.children();
  const rows = await model.children(h2);
  assert.deepEqual(rows.map((n) => n.kind), ['info', 'group', 'group']);
  assert.equal(model.item(rows[2]).label, 'User');
  assert.equal(c.commands.missing.has('explain'), false, 'explain is still there for the Explain Leak command');
});

test('run leak diff on a daemon without explain: stats, and explain is not asked again', async () => {
  const c = setup();
  await loadThree(c);
  await c.commands.runLeakDiff();
  assert.ok(c.commands.missing.has('explain'));
  assert.equal(c.ui.contexts.get('heapleak.explainAvailable'), false);
  await c.commands.runLeakDiff();
  assert.deepEqual(
    c.daemon.calls.filter((call) => call.method === 'explain' || call.method === 'stats').map((call) => call.method),
    ['explain', 'stats', 'stats'],
  );
  assert.deepEqual(c.ui.errors(), []);
});

test('an explain that fails for another reason falls back to stats; a cancelled one stops', async () => {
  const c = setup();
  await loadThree(c);
  c.daemon.explainAnswer = () => {
    throw new ResponseError(-32603, 'internal error: boom');
  };
  assert.equal(await c.commands.runLeakDiff(), fx.stats);
  assert.match(c.ui.logs.join('\n'), /explain failed, showing the leak groups of stats instead: internal error: boom/);
  c.daemon.explainAnswer = () => {
    throw new ResponseError(-32800, 'request cancelled');
  };
  const before = c.daemon.calls.filter((call) => call.method === 'stats').length;
  assert.equal(await c.commands.runLeakDiff(), undefined);
  assert.equal(c.daemon.calls.filter((call) => call.method === 'stats').length, before);
});

test('allocation sites of a leak: as is, under a workspace folder, else by suffix; opened at the line', async () => {
  const c = setup();
  c.ui.existing.add('/abs/app.rb');
  assert.equal(await c.commands.resolveSite('/abs/app.rb'), '/abs/app.rb');
  c.ui.existing.add('/ws/lib/metrics.rb');
  assert.equal(await c.commands.resolveSite('/srv/app/lib/metrics.rb'), '/ws/lib/metrics.rb');
  c.ui.workspaceFiles = ['/ws/services/web/app.rb', '/ws/services/web/lib/cache.rb'];
  assert.equal(await c.commands.resolveSite('/srv/app/lib/cache.rb'), '/ws/services/web/lib/cache.rb');
  assert.equal(await c.commands.resolveSite('/usr/lib/ruby/fanout.rb'), undefined);
  assert.equal(await c.commands.resolveSite('<internal:kernel>'), undefined);

  const site: SiteNode = { kind: 'site', id: 's', site: '/srv/app/lib/cache.rb:21', file: '/srv/app/lib/cache.rb', line: 21, count: 3, resolved: '/ws/services/web/lib/cache.rb' };
  assert.equal(await c.commands.openSite(site), '/ws/services/web/lib/cache.rb');
  assert.deepEqual(c.ui.opened.at(-1), { file: '/ws/services/web/lib/cache.rb', line: 21 });
  const gone: SiteNode = { kind: 'site', id: 's2', site: '/usr/lib/ruby/fanout.rb:157', file: '/usr/lib/ruby/fanout.rb', line: 157, count: 3 };
  assert.equal(await c.commands.openSite(gone), undefined);
  assert.match(c.ui.messages.at(-1)!.message, /\/usr\/lib\/ruby\/fanout\.rb:157 is not in this workspace/);
});

test('heapleak.leakView "groups": stats groups even from a daemon with leak rows', async () => {
  const ui = new FakeUi();
  const daemon = new FakeDaemon();
  daemon.explainAnswer = () => fx.explainLeaks;
  const store = new HeapStore();
  const commands = new Commands(ui, daemon, store, () => ({ ...settings, leakView: 'groups' }));
  await commands.loadHeaps(['/d/A.json', '/d/B.json', '/d/C.json']);
  assert.equal(await commands.runLeakDiff(), fx.stats);
  assert.deepEqual(daemon.calls.filter((call) => call.method === 'explain' || call.method === 'stats').map((call) => call.method), ['stats']);
  assert.equal(store.diffFor('h2')?.explain, undefined);
});

test('a sparse leak row (no samples, no objects, no path) shows as less, not as a crash', async () => {
  const c = setup();
  c.daemon.explainAnswer = () => ({ leaks: [{ key: 'Array in $EVENTS', holder: null, count: 12, memsize: 480 }], total: { count: 12, memsize: 480 } });
  await loadThree(c);
  await c.commands.runLeakDiff();
  const model = new TreeModel(c.store, c.daemon);
  const [, h2] = await model.children();
  const rows = await model.children(h2);
  assert.deepEqual(rows.map((n) => model.item(n).label), ['Leaked: 12 objects, 480 B', 'Array in $EVENTS']);
  assert.equal(model.item(rows[1]).description, '12 objects · 480 B retained');
  const kids = await model.children(rows[1]);
  assert.deepEqual(kids.map((n) => model.item(n).label), ['No holder: the objects hang directly off GC roots']);
});
