// explain's leak rows -> Problems entries, squiggles and CodeLenses on the
// allocation sites; rebuilt when a diff is rerun, cleared when its heaps go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LeakDiagnostics, LeakLens, SiteDiagnostic, buildLeakDiagnostics, holderText, leakLenses, siteMessage } from '../../src/diagnostics';
import { HeapStore } from '../../src/model';
import { LeakRow } from '../../src/protocol';
import { classifySitePath, mapSitePath, siteKind } from '../../src/sites';
import * as fx from '../support/fixtures';

// The workspace /ws holds the app deployed at /srv/app; app.rb:27 names a relative path.
const folders = ['/ws'];
const files = new Set(['/ws/lib/metrics.rb', '/ws/app.rb']);
async function locate(file: string) {
  const mapped = mapSitePath(file, { '/srv/app/': '${workspaceFolder}/' }, folders);
  const resolved = mapped && files.has(mapped) ? mapped : files.has(`/ws/${file}`) ? `/ws/${file}` : undefined;
  return { resolved, kind: siteKind(file, resolved, folders) };
}

test('the message names the count, the class, the holder and the retained bytes', () => {
  const row = fx.explainLeaks.leaks[1];
  assert.equal(siteMessage(row, 500, 'Hash'), '500 Hash allocated here are held by Hash in App.@request_log: 97.7 KiB retained');
  assert.equal(siteMessage({ ...row, retained: 1_887_437 }, 3000, 'PriceCalculator::Quote'), '3,000 PriceCalculator::Quote allocated here are held by Hash in App.@request_log: 1.8 MiB retained');
  assert.equal(siteMessage(row, 1, 'Hash'), '1 Hash allocated here is held by Hash in App.@request_log: 97.7 KiB retained');
  const keyless: LeakRow = { key: '?', count: 1, memsize: 10, samples: [], pathNames: ['ROOT vm', 'Object', 'App'] };
  assert.equal(holderText(keyless), 'App');
});

test('every program site of every leak row becomes a warning; gems, stdlib and noise do not', async () => {
  const { diagnostics, skipped } = await buildLeakDiagnostics('h2', fx.explainLeaks, locate);
  const seen = diagnostics.map((d) => `${d.file}:${d.line} ${d.code} ${d.count}`);
  assert.deepEqual(seen, [
    '/ws/lib/metrics.rb:14 9c41e07a2b5d3f68 1000',
    '/ws/lib/metrics.rb:14 9c41e07a2b5d3f68 600',
    '/ws/app.rb:31 9c41e07a2b5d3f68 400',
    '/ws/app.rb:27 52e0b7c4a9f13d06 500',
    '/ws/app.rb:28 52e0b7c4a9f13d06 1000',
  ]);
  const first = diagnostics[0];
  assert.equal(first.severity, 'warning');
  assert.equal(first.heap, 'h2');
  assert.equal(first.leak, '9c41e07a2b5d3f68');
  assert.match(first.message, /^1,000 Proc allocated here are held by Array in ActiveSupport::Notifications::Fanout@string_subscribers\["render\.app"\]: 281\.2 KiB retained$/);
  // the Fanout subscriber was allocated in a library installed under lib/ruby/vendor_ruby
  assert.deepEqual(skipped, [{ site: '/usr/lib/ruby/vendor_ruby/active_support/notifications/fanout.rb:157', kind: 'stdlib' }]);
  assert.equal(classifySitePath(skipped[0].site.replace(/:\d+$/, '')), 'stdlib');
});

test('one CodeLens per line and leak, with the whole leak\'s count and bytes', async () => {
  const { diagnostics } = await buildLeakDiagnostics('h2', fx.explainLeaks, locate);
  const rows = new Map(fx.explainLeaks.leaks.map((r) => [`h2\0${r.signature}`, r]));
  const lenses = leakLenses(diagnostics, rows);
  assert.deepEqual(
    lenses.map((l) => `${l.file}:${l.line} ${l.title}`),
    [
      '/ws/lib/metrics.rb:14 heapleak: 3,000 leaked objects, 281.2 KiB retained — show leak',
      '/ws/app.rb:31 heapleak: 3,000 leaked objects, 281.2 KiB retained — show leak',
      '/ws/app.rb:27 heapleak: 1,500 leaked objects, 97.7 KiB retained — show leak',
      '/ws/app.rb:28 heapleak: 1,500 leaked objects, 97.7 KiB retained — show leak',
    ],
  );
  assert.deepEqual({ heap: lenses[2].heap, leak: lenses[2].leak }, { heap: 'h2', leak: '52e0b7c4a9f13d06' });
});

test('a site that does not locate is skipped, not an error', async () => {
  const { diagnostics, skipped } = await buildLeakDiagnostics('h2', fx.explainLeaks, async () => {
    throw new Error('file system gone');
  });
  assert.equal(diagnostics.length, 0);
  assert.equal(skipped.length, 6);
  assert.ok(skipped.every((s) => s.kind === 'outside'));
});

test('diagnostics follow the store: set on a diff, replaced on a rerun, cleared on unload', async () => {
  const store = new HeapStore();
  ['h1', 'h2', 'h3'].forEach((id, k) => store.addHeap(fx.heap(id, `${'ABC'[k]}.json`)));
  const sunk: { diagnostics: SiteDiagnostic[]; lenses: LeakLens[] }[] = [];
  const sync = new LeakDiagnostics(store, locate, (diagnostics, lenses) => sunk.push({ diagnostics, lenses }));
  const diff = (explain = fx.explainLeaks) => ({
    baseline: 'h1',
    target: 'h2',
    later: 'h3',
    groupBy: 'class',
    result: { groups: [], total: explain.total },
    explain,
  });
  store.setDiff(diff());
  await sync.rebuild();
  assert.equal(sunk.at(-1)!.diagnostics.length, 5);
  assert.equal(sunk.at(-1)!.lenses.length, 4);
  assert.equal(sync.skipped.length, 1);
  // rerun with one leak row left: the other row's squiggles go
  store.setDiff(diff({ ...fx.explainLeaks, leaks: [fx.explainLeaks.leaks[1]] }));
  await sync.rebuild();
  assert.deepEqual(
    sunk.at(-1)!.diagnostics.map((d) => d.line),
    [27, 28],
  );
  // a groups-only diff (no explain) has nothing to squiggle
  store.setDiff({ ...diff(), explain: undefined });
  await sync.rebuild();
  assert.equal(sunk.at(-1)!.diagnostics.length, 0);
  store.setDiff(diff());
  await sync.rebuild();
  assert.equal(sunk.at(-1)!.diagnostics.length, 5);
  store.removeHeap('h3');
  await sync.rebuild();
  assert.deepEqual(sunk.at(-1), { diagnostics: [], lenses: [] });
  sync.dispose();
  assert.deepEqual(sunk.at(-1), { diagnostics: [], lenses: [] });
});
