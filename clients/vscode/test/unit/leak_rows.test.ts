// The Heaps tree on explain's one-row-per-leak answer (issue 12): one row
// per leak, expanding to holder, path, objects by class -> allocation sites
// and samples; the noise under "Probably not leaks".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ClassNode,
  HeapStore,
  LeakNode,
  ObjectNode,
  SectionNode,
  SiteNode,
  TreeModel,
  TreeNode,
  growthText,
  objectWhat,
  objectsText,
  parseSite,
} from '../../src/model';
import { growthPerDump, isLeakRows } from '../../src/protocol';
import { bestSuffixMatch } from '../../src/details';
import * as fx from '../support/fixtures';

function setup(resolve: (file: string) => string | undefined = () => undefined) {
  const store = new HeapStore();
  ['h1', 'h2', 'h3'].forEach((id, k) => store.addHeap(fx.heap(id, `${'ABC'[k]}.json`)));
  const asked: string[] = [];
  const model = new TreeModel(store, { referrers: async (p) => ({ address: p.address, total: 0, offset: 0, items: [] }) }, 50, async (file) => {
    asked.push(file);
    return resolve(file);
  });
  const groups = fx.explainLeaks.leaks.map((row) => ({ key: row.key, count: row.count, memsize: row.memsize, samples: row.samples }));
  store.setDiff({
    baseline: 'h1',
    target: 'h2',
    later: 'h3',
    groupBy: 'class',
    result: { groups, total: fx.explainLeaks.total },
    explain: fx.explainLeaks,
  });
  return { store, model, asked };
}

async function heapRows(model: TreeModel): Promise<TreeNode[]> {
  const [, h2] = await model.children();
  return model.children(h2);
}

function section(nodes: TreeNode[], which: SectionNode['section']): SectionNode {
  const found = nodes.find((n): n is SectionNode => n.kind === 'section' && n.section === which);
  assert.ok(found, `no ${which} section in ${nodes.map((n) => n.kind).join(', ')}`);
  return found;
}

test('the new shape is told from the per-class one', () => {
  assert.equal(isLeakRows(fx.explainLeaks), true);
  assert.equal(isLeakRows(fx.explainPerClass), false);
  assert.equal(isLeakRows({ leaks: [], noise: [], total: { count: 0, memsize: 0 } }), true, 'no leak, but the noise field: the new shape');
  assert.equal(isLeakRows({ leaks: [], total: { count: 0, memsize: 0 } }), false);
  assert.equal(isLeakRows(null), false);
  assert.equal(isLeakRows({ markdown: '# text' }), false);
});

test('one row per leak: key, count, bytes retained, growth; noise in a collapsed node after them', async () => {
  const { model } = setup();
  const rows = await heapRows(model);
  assert.deepEqual(
    rows.map((n) => n.kind),
    ['info', 'leak', 'leak', 'section'],
  );
  assert.equal(model.item(rows[0]).label, 'Leaked: 4,540 objects, 357.0 KiB');
  const first = model.item(rows[1]);
  assert.equal(first.label, 'Array in ActiveSupport::Notifications::Fanout@string_subscribers["render.app"]');
  assert.equal(first.description, '3,000 objects · 281.2 KiB retained · +1,000/dump');
  assert.equal(first.contextValue, 'leak');
  assert.equal(first.collapsible, 'collapsed');
  assert.match(first.tooltip!, /holder: Array 0x7f3a1c2e4b58/);
  assert.match(first.tooltip!, /reached through constant ActiveSupport::Notifications \(GC root vm\)/);
  assert.match(first.tooltip!, /growth \(baseline → target → later\): length 4 → 1,004 → 2,004/);
  assert.match(first.tooltip!, /signature 9c41e07a2b5d3f68/);
  // later unknown: the growth is the target's step, and the tooltip says "?"
  const second = model.item(rows[2]);
  assert.equal(second.description, '1,500 objects · 97.7 KiB retained · +1,000/dump');
  assert.match(second.tooltip!, /size 0 → 1,000 → \?/);
  const noise = model.item(rows[3]);
  assert.equal(noise.label, 'Probably not leaks');
  assert.equal(noise.collapsible, 'collapsed');
  assert.equal(noise.description, '1 row, 1.6 KiB');
  // ids differ per row and per diff, so VS Code keeps nothing stale expanded
  assert.equal(new Set(rows.map((n) => n.id)).size, rows.length);
});

test('a leak expands to its holder (an object like any other), its path, its objects by class and its samples', async () => {
  const { model } = setup();
  const rows = await heapRows(model);
  const kids = await model.children(rows[1]);
  assert.deepEqual(
    kids.map((n) => (n.kind === 'section' ? n.section : n.kind)),
    ['object', 'path', 'objects', 'samples'],
  );
  const holder = kids[0] as ObjectNode;
  assert.equal(holder.role, 'holder');
  assert.equal(holder.address, '0x7f3a1c2e4b58');
  const holderItem = model.item(holder);
  assert.equal(holderItem.label, 'Holder: Array');
  assert.equal(holderItem.description, '0x7f3a1c2e4b58 · 7.9 KiB');
  assert.equal(holderItem.contextValue, 'object', 'Find Common Retainer, Path to GC Root, Inspect, Owner apply to it');
  assert.deepEqual(holderItem.command?.command, 'heapleak.inspectObject');
  assert.equal(holderItem.collapsible, 'collapsed', 'expands to its referrers like any object');

  const path = model.item(kids[1]);
  assert.equal(path.label, 'Reached through constant ActiveSupport::Notifications');
  assert.equal(path.description, 'ROOT vm → Object → ActiveSupport::Notifications → ActiveSupport::Notifications::Fanout → Hash → Array');
  const steps = await model.children(kids[1]);
  assert.deepEqual(
    steps.map((n) => model.item(n).label),
    ['ROOT vm', 'Object', 'ActiveSupport::Notifications', 'ActiveSupport::Notifications::Fanout', 'Hash', 'Array'],
  );
  assert.deepEqual(
    steps.slice(1).map((n) => (n as ObjectNode).address),
    fx.explainLeaks.leaks[0].path,
  );
  assert.equal(model.item(steps[2]).description, '0x7f3a1c2f0a28', 'each name sits on its own address');

  const classes = await model.children(kids[2]);
  assert.equal(model.item(kids[2]).description, '3 classes');
  assert.deepEqual(
    classes.map((n) => [model.item(n).label, model.item(n).description]),
    [
      ['Proc', '1,000 objects, 101.6 KiB'],
      ['ActiveSupport::Notifications::Fanout::Subscribers::Timed', '1,000 objects, 78.1 KiB'],
      ['String', '1,000 objects, 78.1 KiB'],
    ],
  );

  const samples = await model.children(kids[3]);
  assert.equal(model.item(kids[3]).description, '3 of 3,000');
  assert.deepEqual(
    samples.map((n) => (n as ObjectNode).address),
    fx.explainLeaks.leaks[0].samples,
  );
  assert.equal((samples[0] as ObjectNode).role, 'sample');
});

test('allocation sites: clickable when the workspace has the file, else text saying it was not found', async () => {
  const { model, asked } = setup((file) => (file === '/srv/app/lib/metrics.rb' ? '/ws/lib/metrics.rb' : undefined));
  const rows = await heapRows(model);
  const kids = await model.children(rows[1]);
  const classes = (await model.children(section(kids, 'objects'))) as ClassNode[];
  const proc = await model.children(classes[0]);
  assert.equal(proc.length, 1);
  const site = proc[0] as SiteNode;
  assert.deepEqual([site.file, site.line, site.resolved], ['/srv/app/lib/metrics.rb', 14, '/ws/lib/metrics.rb']);
  const item = model.item(site);
  assert.equal(item.label, 'metrics.rb:14');
  assert.equal(item.description, '1,000 objects · /srv/app/lib');
  assert.deepEqual(item.command, { command: 'heapleak.openSite', title: 'Open Allocation Site', arguments: [site] });
  assert.equal(item.tooltip, '/srv/app/lib/metrics.rb:14\nOpen /ws/lib/metrics.rb:14');

  const timed = await model.children(classes[1]);
  const missing = model.item(timed[0]);
  assert.equal(missing.command, undefined, 'a file the workspace does not have is not clickable');
  assert.equal(
    missing.tooltip,
    '/usr/lib/ruby/vendor_ruby/active_support/notifications/fanout.rb:157\n/usr/lib/ruby/vendor_ruby/active_support/notifications/fanout.rb was not found in this workspace',
  );
  assert.equal(missing.label, 'fanout.rb:157');
  assert.equal(missing.contextValue, 'siteNotFound');
  const strings = await model.children(classes[2]);
  assert.deepEqual(
    strings.map((n) => model.item(n).label),
    ['metrics.rb:14', 'app.rb:31'],
  );
  assert.equal(model.item(strings[1]).description, '400 objects · /srv/app');
  assert.deepEqual(asked, [
    '/srv/app/lib/metrics.rb',
    '/usr/lib/ruby/vendor_ruby/active_support/notifications/fanout.rb',
    '/srv/app/lib/metrics.rb',
    '/srv/app/app.rb',
  ]);

  // a class with no sites (untraced dumps) does not expand
  const rowsNoise = await model.children(rows[3]);
  const noiseKids = await model.children(rowsNoise[0]);
  const arrays = await model.children(section(noiseKids, 'objects'));
  assert.equal(model.item(arrays[0]).collapsible, 'none');
  assert.match(model.item(arrays[0]).tooltip!, /not traced/);
});

test('noise rows say why, and have no holder when the objects hang off a GC root', async () => {
  const { model } = setup();
  const rows = await heapRows(model);
  const noise = (await model.children(rows[3])) as LeakNode[];
  assert.equal(noise.length, 1);
  assert.equal(noise[0].noise, true);
  const item = model.item(noise[0]);
  assert.equal(item.label, 'hidden Arrays under the finalizers root');
  assert.equal(item.contextValue, 'leakNoise');
  assert.match(item.description!, /^40 objects · 1\.6 KiB retained · hidden arrays reachable only from the finalizers root/);
  const kids = await model.children(noise[0]);
  assert.equal(model.item(kids[0]).label, 'Why: hidden arrays reachable only from the finalizers root, created by WeakMap/WeakRef/define_finalizer');
  assert.equal(model.item(kids[0]).tooltip, 'reason: finalizerTable');
  assert.equal(model.item(kids[1]).label, 'No holder: the objects hang directly off GC root "finalizers"');
  const path = await model.children(section(kids, 'path'));
  assert.deepEqual(
    path.map((n) => model.item(n).label),
    ['ROOT finalizers'],
  );
});

test('a diff with no leak says so above the noise', async () => {
  const store = new HeapStore();
  store.addHeap(fx.heap('h2', 'B.json'));
  const explain = { ...fx.explainLeaks, leaks: [], total: { count: 40, memsize: 1600 } };
  store.setDiff({ baseline: 'h1', target: 'h2', later: 'h3', groupBy: 'class', result: { groups: [], total: explain.total }, explain });
  const model = new TreeModel(store, { referrers: async () => ({ address: '', total: 0, offset: 0, items: [] }) });
  const [h2] = await model.children();
  const rows = await model.children(h2);
  assert.deepEqual(
    rows.map((n) => model.item(n).label),
    ['Leaked: 40 objects, 1.6 KiB', 'No leak found', 'Probably not leaks'],
  );
});

test('object labels use the wire name when present, else the key', () => {
  assert.equal(objectWhat({ address: '0x1', type: 'CLASS', class: '#<Class:0x7f00>', key: 'CLASS:UserCache', name: 'UserCache' }), 'UserCache');
  assert.equal(
    objectWhat({ address: '0x1', type: 'STRUCT', class: 'PriceCalculator::Quote', key: 'STRUCT', name: 'PriceCalculator::Quote' }),
    'PriceCalculator::Quote',
  );
  assert.equal(objectWhat({ address: '0x1', type: 'DATA', key: 'DATA:strio' }), 'DATA:strio');
  assert.equal(objectWhat({ address: '0x1', type: 'OBJECT', class: 'User' }), 'User (OBJECT)');
});

test('growth per dump, sites, suffix matches', () => {
  assert.equal(growthPerDump({ field: 'size', baseline: 10, target: 310, later: 610 }), 300);
  assert.equal(growthPerDump({ field: 'size', baseline: null, target: 310, later: 610 }), 300);
  assert.equal(growthPerDump({ field: 'size', baseline: null, target: 310, later: null }), undefined);
  assert.equal(growthPerDump(null), undefined);
  const row = fx.explainLeaks.leaks[0];
  assert.equal(growthText({ ...row, growth: { field: 'length', baseline: 50, target: 30, later: 10 } }), '−20/dump');
  assert.equal(growthText({ ...row, growth: null }), undefined);
  assert.equal(objectsText(1), '1 object');
  assert.equal(objectsText(2700), '2,700 objects');
  assert.deepEqual(parseSite('app.rb:12'), { file: 'app.rb', line: 12 });
  assert.deepEqual(parseSite('/srv/app/lib/a:b.rb:7'), { file: '/srv/app/lib/a:b.rb', line: 7 });
  assert.deepEqual(parseSite('(eval)'), { file: '(eval)', line: 1 });
  // the longest common tail wins; a tie goes to the least nested file; the base name must match
  const files = ['/ws/vendor/gems/x/lib/metrics.rb', '/ws/services/web/lib/metrics.rb', '/ws/metrics.rb'];
  assert.equal(bestSuffixMatch('/srv/app/lib/metrics.rb', files), '/ws/services/web/lib/metrics.rb');
  assert.equal(bestSuffixMatch('/elsewhere/metrics.rb', files), '/ws/metrics.rb');
  assert.equal(bestSuffixMatch('/srv/app/lib/other.rb', files), undefined);
});
