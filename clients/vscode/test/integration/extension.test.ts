// extension.ts itself, activated inside the `vscode` stand-in, driving the
// real heapleakd: the commands as the palette and the tree call them, the
// tree provider, the graph webview and its click-to-inspect, documents.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Dumps, daemonBinary, makeDumps, repoRoot } from '../support/daemon_env';
import { Uri, fakeContext, installVscodeStub, makeDocument, resetState, state } from '../support/vscode_stub';

installVscodeStub();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const extension = require('../../src/extension') as typeof import('../../src/extension');

const binary = daemonBinary();
let dumps: Dumps;

before(() => {
  dumps = makeDumps('heapleak-vscode-ext-');
  // the workspace holds the Ruby sources, so allocation sites resolve
  fs.cpSync(path.join(repoRoot, 'tests/gen'), path.join(dumps.dir, 'tests/gen'), { recursive: true });
});
after(() => dumps?.cleanup());

async function until<T>(what: string, probe: () => T | undefined | false, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function activate() {
  const context = fakeContext();
  const api = extension.activate(context);
  const tree = state.treeViews.get('heapleak.heaps');
  return { context, api, tree, dispose: () => Promise.all(context.subscriptions.map((s: { dispose(): unknown }) => s.dispose())) };
}

describe('the extension in the vscode stand-in, with the real daemon', () => {
  let ext: ReturnType<typeof activate>;
  const run = (command: string, ...args: unknown[]) => state.commands.get(command)!(...args);

  before(() => {
    resetState();
    state.config.set('heapleak.daemonPath', binary);
    // This block checks the per-group tree, which any daemon gives; the leak rows are below.
    state.config.set('heapleak.leakView', 'groups');
    state.workspaceFolders = [{ uri: Uri.file(dumps.dir), name: 'ws', index: 0 }];
    ext = activate();
  });
  after(async () => {
    await ext.api.client()?.stop();
    await ext.dispose();
  });

  test('activation contributes every command of package.json', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
    const declared = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual([...state.commands.keys()].sort(), declared);
    assert.equal(state.contexts.get('heapleak.ownerAvailable'), false);
  });

  test('Load Heap Dump(s) from the explorer: three heaps with progress, in the tree', async () => {
    const uris = [dumps.a, dumps.b, dumps.c].map((f) => Uri.file(f));
    await run('heapleak.loadHeap', uris[0], uris);
    assert.deepEqual(state.progress.map((p) => p.title), ['Heapleak: loading A.json', 'Heapleak: loading B.json', 'Heapleak: loading C.json']);
    const increments = state.progress[0].reports.reduce((sum, r) => sum + (r.increment ?? 0), 0);
    assert.equal(increments, 100);
    const roots = await ext.tree.provider.getChildren();
    const items = roots.map((n: unknown) => ext.tree.provider.getTreeItem(n));
    assert.deepEqual(items.map((i: { label: string }) => i.label), ['A.json', 'B.json', 'C.json']);
    assert.match(items[1].description, /^h2 · [\d,]+ objects · [\d.]+ MiB$/);
    assert.ok(state.executed.some((e) => e.command === 'heapleak.heaps.focus'));
    assert.equal(ext.tree.message, 'Next: Heapleak: Run Leak Diff');
    // the optional methods were probed from capabilities once the daemon started
    assert.equal(state.contexts.get('heapleak.ownerAvailable'), ext.api.client()!.serverInfo!.capabilities.methods instanceof Array && (ext.api.client()!.serverInfo!.capabilities.methods as string[]).includes('owner'));
  });

  test('Run Leak Diff with the default picks: the groups under the target heap', async () => {
    await run('heapleak.runLeakDiff');
    assert.equal(state.quickPicks.length, 3);
    const [, h2] = await ext.tree.provider.getChildren();
    const kids = await ext.tree.provider.getChildren(h2);
    const labels = kids.map((n: unknown) => ext.tree.provider.getTreeItem(n).label);
    assert.match(labels[0], /^Leaked: [\d,]+ objects/);
    assert.ok(labels.includes('User'), labels.join(','));
    const user = kids[labels.indexOf('User')];
    assert.match(ext.tree.provider.getTreeItem(user).description, /^300 objects, /);
  });

  test('Find Common Retainer on the User group: the graph webview shows the true retainer', async () => {
    const [, h2] = await ext.tree.provider.getChildren();
    const kids = await ext.tree.provider.getChildren(h2);
    const user = kids.find((n: { kind: string; group?: { key: string } }) => n.kind === 'group' && n.group!.key === 'User');
    await run('heapleak.findRetainer', user, [user]);
    assert.equal(state.panels.length, 1);
    const panel = state.panels[0];
    assert.equal(panel.viewType, 'heapleak.graph');
    assert.equal(panel.title, 'Retainer of User');
    assert.deepEqual(panel.webview.options, { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: false });
    const html = panel.webview.html;
    const retainer = dumps.truth.root.retainer.address;
    assert.match(html, new RegExp(`<h1 id="headline">Retainer: ${retainer} `));
    assert.match(html, new RegExp(`<title>${retainer}</title>`));
    assert.match(html, /Content-Security-Policy" content="default-src 'none'; img-src vscode-webview:\/\/stub data:/);
    // clicking a node in the page inspects it
    panel.webview.postMessageFromPage({ type: 'inspect', address: retainer });
    const shown = await until('the object document', () => state.shownDocuments.find((d) => d.uri.includes(retainer)));
    assert.equal(shown.uri, `heapleak-object:/h2/${retainer}.jsonc`);
    assert.equal(shown.language, 'jsonc');
    assert.match(shown.text, new RegExp(`^// heapleak: object ${retainer} in heap B.json \\(h2\\)\\n// Hash \\(HASH\\)`));
  });

  test('a sample object: inspect, lazily fetched referrers, allocation site link', async () => {
    const [, h2] = await ext.tree.provider.getChildren();
    const kids = await ext.tree.provider.getChildren(h2);
    const user = kids.find((n: { kind: string; group?: { key: string } }) => n.kind === 'group' && n.group!.key === 'User');
    const samples = await ext.tree.provider.getChildren(user);
    assert.equal(samples.length, 50);
    const item = ext.tree.provider.getTreeItem(samples[0]);
    assert.equal(item.command.command, 'heapleak.inspectObject');
    await run(item.command.command, ...item.command.arguments);
    const doc = state.shownDocuments.at(-1)!;
    assert.match(doc.text, /\/\/ User \(OBJECT\)/);
    assert.match(doc.text, /\/\/ allocated at .*class_cache\.rb:\d+/);
    const referrers = await ext.tree.provider.getChildren(samples[0]);
    const referrerItems = referrers.map((n: unknown) => ext.tree.provider.getTreeItem(n));
    assert.ok(referrerItems.some((i: { label: string }) => i.label === dumps.truth.root.retainer.address), JSON.stringify(referrerItems.map((i: { label: string }) => i.label)));
    // the document link goes to the Ruby source at that line
    const links = state.linkProviders[0].provider.provideDocumentLinks(makeDocument(Uri.parse(doc.uri), doc.text));
    assert.equal(links.length, 1);
    assert.match(links[0].target.toString(), /^file:.*tests\/gen\/scenarios\/class_cache\.rb#L\d+$/);
    // and Open Allocation Site opens it at the line
    await run('heapleak.openAllocationSite', samples[0]);
    const opened = state.shownDocuments.at(-1)!;
    assert.match(opened.uri, /class_cache\.rb$/);
    assert.ok(opened.selectionLine! >= 0);
  });

  test('Path to GC Root draws the path in the same webview', async () => {
    const sample = dumps.truth.root.samples[0];
    await run('heapleak.pathToRoot', { kind: 'object', id: 'x', heap: 'h2', address: sample, role: 'sample' });
    const html = state.panels[0].webview.html;
    assert.match(html, new RegExp(`<h1 id="headline">Path from GC root &quot;\\w+&quot; to ${sample}: \\d+ hops</h1>`));
    assert.match(html, new RegExp(`<title>${dumps.truth.root.retainer.address}</title>`));
  });

  test('Unload Heap from the tree', async () => {
    const roots = await ext.tree.provider.getChildren();
    await run('heapleak.unloadHeap', roots[2]);
    const after = await ext.tree.provider.getChildren();
    assert.equal(after.length, 2);
    assert.deepEqual((await ext.api.client()!.listHeaps()).heaps.map((h) => h.heap), ['h1', 'h2']);
  });

  test('a daemon crash empties the tree, warns, and the restarted daemon serves', async () => {
    const client = ext.api.client()!;
    const pid = client.pid!;
    process.kill(pid, 'SIGKILL');
    const warning = await until('the crash warning', () => state.messages.find((m) => /crashed/.test(m.message)));
    assert.match(warning.message, /heapleakd crashed \(signal SIGKILL\) and was restarted\. 2 loaded heaps were lost\./);
    assert.deepEqual(warning.actions, ['Reload Heaps']);
    assert.deepEqual(await ext.tree.provider.getChildren(), []);
    await until('the restart', () => client.running && client.pid !== pid);
    await run('heapleak.loadHeap', Uri.file(dumps.a));
    assert.equal((await ext.tree.provider.getChildren()).length, 1);
    assert.ok((state.outputs.get('Heapleak') ?? []).join('').includes('exited unexpectedly'));
  });
});

// One row per leak, from the real daemon's explain: a daemon before issue 12
// answers one row per class, which test/e2e/leak_rows_shim.mjs regroups; on a
// daemon that answers one row per leak the shim passes the answer unchanged.
describe('the extension with one row per leak (real daemon, through leak_rows_shim.mjs)', () => {
  let ext: ReturnType<typeof activate>;
  let wrapper: string;
  const run = (command: string, ...args: unknown[]) => state.commands.get(command)!(...args);
  const item = (node: unknown) => ext.tree.provider.getTreeItem(node);

  before(() => {
    resetState();
    wrapper = path.join(dumps.dir, 'heapleakd-leak-rows');
    const shim = path.resolve(__dirname, '../../../test/e2e/leak_rows_shim.mjs');
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(shim)} ${JSON.stringify(binary)} "$@"\n`, { mode: 0o755 });
    state.config.set('heapleak.daemonPath', wrapper);
    state.workspaceFolders = [{ uri: Uri.file(dumps.dir), name: 'ws', index: 0 }];
    ext = activate();
  });
  after(async () => {
    await ext.api.client()?.stop();
    await ext.dispose();
  });

  async function firstLeak() {
    const [, h2] = await ext.tree.provider.getChildren();
    const rows = await ext.tree.provider.getChildren(h2);
    const leak = rows.find((n: { kind: string }) => n.kind === 'leak');
    assert.ok(leak, `no leak row in ${rows.map((n: unknown) => item(n).label).join(' | ')}`);
    return { rows, leak };
  }

  test('Run Leak Diff: one row per leak, the first held by the true retainer', async () => {
    const uris = [dumps.a, dumps.b, dumps.c].map((f) => Uri.file(f));
    await run('heapleak.loadHeap', uris[0], uris);
    await run('heapleak.runLeakDiff');
    const { rows, leak } = await firstLeak();
    // The leaks first; explain's memory last: these dumps have no capture manifests.
    assert.match(item(rows[0]).label, /^Leaked: [\d,]+ objects/);
    const memory = rows[rows.length - 1];
    assert.match(item(memory).label, /^Memory: RSS was not recorded for A and C/);
    assert.match(item(memory).description, /^Ruby objects [+-][\d.]+ (B|KiB|MiB)$/);
    assert.match(item(leak).label, /UserCache/);
    assert.match(item(leak).description, /^[\d,]+ objects · [\d.]+ (B|KiB|MiB) retained/);
    const kids = await ext.tree.provider.getChildren(leak);
    const holder = kids.find((n: { kind: string; role?: string }) => n.kind === 'object' && n.role === 'holder');
    assert.equal(holder.address, dumps.truth.root.retainer.address);
    assert.match(item(holder).label, /^Holder: Hash$/);
    // the holder is an object like any other: its referrers, and Inspect
    const referrers = await ext.tree.provider.getChildren(holder);
    assert.ok(referrers.length >= 1);
    await run(item(holder).command.command, ...item(holder).command.arguments);
    assert.match(state.shownDocuments.at(-1)!.text, new RegExp(`^// heapleak: object ${dumps.truth.root.retainer.address} `));
  });

  test('Objects by class -> User -> its allocation site opens class_cache.rb at the line', async () => {
    const { leak } = await firstLeak();
    const kids = await ext.tree.provider.getChildren(leak);
    const objects = kids.find((n: { kind: string; section?: string }) => n.kind === 'section' && n.section === 'objects');
    const classes = await ext.tree.provider.getChildren(objects);
    const user = classes.find((n: unknown) => item(n).label === 'User');
    assert.ok(user, classes.map((n: unknown) => item(n).label).join(','));
    assert.match(item(user).description, /^300 objects, /);
    const [site] = await ext.tree.provider.getChildren(user);
    const siteItem = item(site);
    assert.match(siteItem.label, /^class_cache\.rb:\d+$/);
    assert.equal(siteItem.command.command, 'heapleak.openSite');
    await run(siteItem.command.command, ...siteItem.command.arguments);
    const opened = state.shownDocuments.at(-1)!;
    assert.match(opened.uri, /tests\/gen\/scenarios\/class_cache\.rb$/);
    assert.equal(opened.selectionLine, Number(/:(\d+)$/.exec(siteItem.label)![1]) - 1);
  });

  test('Find Common Retainer on a leak row draws its samples\' retainer', async () => {
    const { leak } = await firstLeak();
    await run('heapleak.findRetainer', leak, [leak]);
    const panel = state.panels.at(-1)!;
    assert.equal(panel.title, `Retainer of ${item(leak).label}`);
    assert.match(panel.webview.html, /<h1 id="headline">Retainer: 0x[0-9a-f]+ /);
  });

  test('the leak rows\' allocation sites are warnings on class_cache.rb, with a CodeLens that reveals the leak', async () => {
    const { leak } = await firstLeak();
    // The dumps name the repository's copy of the scenario (ruby ran there), outside the
    // workspace folder: nothing is marked until heapleak.pathMappings maps it to the workspace's copy.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(state.diagnostics.get('heapleak')!.size, 0);
    state.config.set('heapleak.pathMappings', { [`${repoRoot}/`]: '${workspaceFolder}/' });
    state.configListeners.fire({ affectsConfiguration: (key: string) => key === 'heapleak.pathMappings' });
    const file = path.join(dumps.dir, 'tests/gen/scenarios/class_cache.rb');
    const entries = await until('the diagnostics', () => state.diagnostics.get('heapleak')?.get(file));
    const user = entries.find((d) => / User allocated here /.test(d.message));
    assert.ok(user, entries.map((d) => d.message).join(' | '));
    assert.match(user.message, /^300 User allocated here are held by Hash in UserCache[^:]*: [\d.]+ (B|KiB|MiB) retained$/);
    assert.equal(user.severity, 1); // Warning
    assert.equal(user.source, 'heapleak');
    assert.equal(user.code, leak.row.signature);
    // the line holds User.new in the scenario
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    assert.match(lines[user.range.start.line], /User\.new/);
    // only the workspace's Ruby files are marked
    for (const marked of state.diagnostics.get('heapleak')!.keys()) assert.ok(marked.startsWith(dumps.dir), marked);
    // the CodeLens above the line reveals the leak row in the tree
    const lenses = state.codeLensProviders[0].provider.provideCodeLenses(makeDocument(Uri.file(file), fs.readFileSync(file, 'utf8')));
    const lens = lenses.find((l: { range: { start: { line: number } } }) => l.range.start.line === user.range.start.line);
    assert.ok(lens, 'a lens on the User line');
    assert.match(lens.command.title, /^heapleak: [\d,]+ leaked objects, [\d.]+ (B|KiB|MiB) retained — show leak$/);
    await run(lens.command.command, ...lens.command.arguments);
    const revealed = state.revealed.at(-1)!;
    assert.equal(revealed.node.kind, 'leak');
    assert.equal(revealed.node.id, leak.id);
  });

  test('Show Dominator Treemap: the page has the tree by retained bytes and fetches deeper levels', async () => {
    const [, h2] = await ext.tree.provider.getChildren();
    await run('heapleak.showTreemap', h2);
    const panel = state.panels.find((p) => p.viewType === 'heapleak.treemap')!;
    assert.ok(panel, 'a treemap panel');
    assert.equal(panel.title, 'Treemap of B.json');
    const html = panel.webview.html;
    assert.match(html, /Content-Security-Policy" content="default-src 'none'; img-src vscode-webview:\/\/stub data:; style-src vscode-webview:\/\/stub 'nonce-[^']+'; script-src 'nonce-[^']+'/);
    assert.match(html, /<script nonce="[^"]+" src="https:\/webview\/[^"]*\/media\/dist\/treemap\.js"><\/script>/);
    const data = JSON.parse(/<script type="application\/json" id="treemap-data">([\s\S]*?)<\/script>/.exec(html)![1]);
    assert.equal(data.kind, 'root');
    assert.ok(data.children.length >= 2);
    const sizes = data.children.filter((c: { kind: string }) => c.kind === 'object').map((c: { retained: number }) => c.retained);
    assert.deepEqual(sizes, [...sizes].sort((x: number, y: number) => y - x));
    // the holder, zoomed into: the page asks, the extension posts its subtree, the holder outlined as a leak
    const holder = dumps.truth.root.retainer.address;
    panel.webview.postMessageFromPage({ type: 'expand', address: holder });
    const posted = await until('the subtree', () => panel.webview.posted.find((m) => (m as { type: string }).type === 'subtree')) as { data: { id: string; leak?: string; childCount: number; children: { kind: string; key: string }[] } };
    assert.equal(posted.data.id, holder);
    assert.equal(posted.data.leak, 'leak');
    assert.ok(posted.data.childCount >= 300, `the Hash dominates its Users (${posted.data.childCount} children)`);
    assert.ok(posted.data.children.some((c) => c.key === 'User'));
    // a click on a cell with nothing more inside inspects the object
    panel.webview.postMessageFromPage({ type: 'inspect', address: holder });
    await until('the object document', () => state.shownDocuments.find((d) => d.uri.includes(`${holder}.jsonc`)));
  });

  test('unloading a heap of the diff clears its squiggles and lenses', async () => {
    const roots = await ext.tree.provider.getChildren();
    await run('heapleak.unloadHeap', roots[2]);
    await until('no diagnostics', () => state.diagnostics.get('heapleak')!.size === 0);
    const file = path.join(dumps.dir, 'tests/gen/scenarios/class_cache.rb');
    assert.deepEqual(state.codeLensProviders[0].provider.provideCodeLenses(makeDocument(Uri.file(file), 'x\n')), []);
  });
});

describe('the extension without a daemon', () => {
  test('a wrong heapleak.daemonPath: an error that says how to fix it, with Open Settings', async () => {
    resetState();
    state.config.set('heapleak.daemonPath', '/nonexistent/heapleakd');
    state.workspaceFolders = [];
    state.messageAction = (_m, actions) => (actions.includes('Open Settings') ? 'Open Settings' : undefined);
    const ext = activate();
    try {
      await state.commands.get('heapleak.loadHeap')!(Uri.file('/tmp/x.json'));
      const error = state.messages.find((m) => m.level === 'error')!;
      assert.match(error.message, /heapleak\.daemonPath is set to "\/nonexistent\/heapleakd" but no executable is there/);
      assert.deepEqual(error.actions, ['Open Settings', 'Show Output']);
      await until('settings opened', () => state.executed.find((e) => e.command === 'workbench.action.openSettings'));
      assert.equal(state.progress.length, 0);
    } finally {
      await ext.dispose();
    }
  });
});
