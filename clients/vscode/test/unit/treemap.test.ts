// The dominator treemap's data: dominatorTree nodes -> cells whose areas are
// retained bytes, leak rows marked, deeper answers grafted in, the layout
// inside its box, and the page under the graph view's CSP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeapStore } from '../../src/model';
import { DominatorNode, DominatorTreeParams, DominatorTreeResult } from '../../src/protocol';
import { TreemapModel, buildTreemapHtml } from '../../src/treemap';
import { classColor, findDatum, graftSubtree, leakMarks, shapeTreemap } from '../../src/treemap_data';
import { layoutTreemap } from '../../src/treemap_layout';
import * as fx from '../support/fixtures';

const node = (address: string, name: string, retained: number, memsize: number, extra: Partial<DominatorNode> = {}): DominatorNode => ({
  address,
  type: 'OBJECT',
  name,
  key: name,
  memsize,
  retained,
  ...extra,
});

// GC roots (1000) -> Thread (600: itself 100, a Hash 300, 200 in 3 smaller) and UserCache (400, children not fetched)
const wire: DominatorNode = {
  ...node('ROOT', 'GC roots', 1000, 0, { type: 'ROOT', key: 'GC roots' }),
  childCount: 2,
  children: [
    { ...node('0x10', 'Thread', 600, 100), childCount: 4, other: { count: 3, retained: 200 }, children: [node('0x20', 'Hash', 300, 300, { childCount: 0, children: [] })] },
    node('0x7f3a1c3a9e10', 'UserCache', 400, 50),
  ],
};

test('shaping: each node keeps its listed children plus one cell for the bytes they do not cover', () => {
  const data = shapeTreemap(wire, leakMarks(fx.explainLeaks.leaks));
  assert.equal(data.kind, 'root');
  assert.equal(data.address, undefined);
  assert.deepEqual(
    data.children!.map((c) => [c.id, c.kind, c.retained, c.lazy]),
    [
      ['0x10', 'object', 600, false],
      ['0x7f3a1c3a9e10', 'object', 400, true],
    ],
  );
  const thread = data.children![0];
  assert.deepEqual(
    thread.children!.map((c) => [c.id, c.kind, c.name, c.retained]),
    [
      ['0x20', 'object', 'Hash', 300],
      ['0x10/rest', 'rest', '3 smaller', 300],
    ],
  );
  // a leaf with no children fetched yet and nothing below it is not lazy
  assert.equal(thread.children![0].lazy, false);
  // the holder of the second leak row (fixtures) is marked
  assert.equal(data.children![1].leak, 'leak');
  assert.equal(data.children![0].leak, undefined);
});

test('leak marks: holders, owners and samples are leaks, root paths are paths', () => {
  const marks = leakMarks(fx.explainLeaks.leaks);
  assert.equal(marks.get('0x7f3a1c2e4b58'), 'leak'); // holder, also the last step of its path
  assert.equal(marks.get('0x7f3a1b801a40'), 'leak'); // a sample
  assert.equal(marks.get('0x7f3a1c2f0a28'), 'path');
  assert.equal(marks.get('0x7f3a1b700028'), undefined); // a noise sample: noise rows are not passed
});

test('layout: cells tile the box by retained bytes, two levels deep, zoomable where there is more', () => {
  const data = shapeTreemap(wire);
  const cells = layoutTreemap(data, 1000, 600);
  const byId = new Map(cells.map((c) => [c.id, c]));
  assert.deepEqual(
    cells.map((c) => `${c.depth}:${c.id}`).sort(),
    ['1:0x10', '1:0x7f3a1c3a9e10', '2:0x10/rest', '2:0x20'].sort(),
  );
  const area = (id: string) => {
    const c = byId.get(id)!;
    return (c.x1 - c.x0) * (c.y1 - c.y0);
  };
  // top-level cells split the box 600:400 (rounding and padding aside)
  const ratio = area('0x10') / area('0x7f3a1c3a9e10');
  assert.ok(ratio > 1.3 && ratio < 1.7, `area ratio ${ratio}`);
  for (const c of cells) assert.ok(c.x0 >= 0 && c.y0 >= 0 && c.x1 <= 1000 && c.y1 <= 600, `${c.id} inside the box`);
  // children sit inside their parent, below its title strip
  const thread = byId.get('0x10')!;
  for (const id of ['0x20', '0x10/rest']) {
    const c = byId.get(id)!;
    assert.ok(c.x0 >= thread.x0 && c.x1 <= thread.x1 && c.y0 >= thread.y0 + 16 && c.y1 <= thread.y1, `${id} inside Thread`);
  }
  assert.equal(byId.get('0x10')!.zoomable, true);
  assert.equal(byId.get('0x7f3a1c3a9e10')!.zoomable, true); // lazy: the page asks for its children
  assert.equal(byId.get('0x20')!.zoomable, false);
  assert.equal(byId.get('0x10/rest')!.zoomable, false);
  assert.match(classColor('User'), /^hsl\(\d+, 42%, 58%\)$/);
  assert.equal(classColor('User'), classColor('User'));
  assert.notEqual(classColor('User'), classColor('HASH'));
});

test('graft: a deeper answer replaces a lazy node; unknown ids and rest cells are refused', () => {
  const data = shapeTreemap(wire);
  const sub = shapeTreemap({ ...node('0x7f3a1c3a9e10', 'UserCache', 400, 50), childCount: 1, children: [node('0x30', 'Hash', 350, 40)] });
  assert.equal(graftSubtree(data, sub), true);
  const found = findDatum(data, '0x7f3a1c3a9e10')!;
  assert.equal(found.datum.lazy, false);
  assert.deepEqual(found.trail.map((d) => d.id), ['ROOT']);
  assert.deepEqual(found.datum.children!.map((c) => c.id), ['0x30', '0x7f3a1c3a9e10/rest']);
  assert.equal(graftSubtree(data, { ...sub, id: '0x999' }), false);
  assert.equal(graftSubtree(data, { ...sub, id: '0x10/rest' }), false);
});

test('the model asks for the super-root, then for the node zoomed into, with the configured limit', async () => {
  const store = new HeapStore();
  ['h1', 'h2', 'h3'].forEach((id, k) => store.addHeap(fx.heap(id, `${'ABC'[k]}.json`)));
  store.setDiff({ baseline: 'h1', target: 'h2', later: 'h3', groupBy: 'class', result: { groups: [], total: fx.explainLeaks.total }, explain: fx.explainLeaks });
  const asked: DominatorTreeParams[] = [];
  const source = {
    async dominatorTree(params: DominatorTreeParams): Promise<DominatorTreeResult> {
      asked.push(params);
      const root = params.root ? { ...node(params.root, 'UserCache', 400, 50), childCount: 0, children: [] } : wire;
      return { root, reachable: 7, unreachable: { count: 2, memsize: 2048 }, heap: params.heap };
    },
  };
  const model = new TreemapModel(store, source, () => 12);
  const view = await model.view('h2');
  assert.equal(view.title, 'Treemap of B.json');
  assert.equal(view.headline, '1.0 KiB reachable in 7 objects (2.0 KiB in 2 unreachable, not drawn); leak rows outlined in red');
  assert.equal(view.data.children![1].leak, 'leak');
  const sub = await model.expand('h2', '0x7f3a1c3a9e10');
  assert.equal(sub.id, '0x7f3a1c3a9e10');
  assert.deepEqual(asked, [
    { heap: 'h2', depth: 3, limit: 12 },
    { heap: 'h2', root: '0x7f3a1c3a9e10', depth: 3, limit: 12 },
  ]);
  // a heap without a diff has nothing outlined
  const plain = await model.view('h1');
  assert.equal(plain.data.children![1].leak, undefined);
  assert.ok(!plain.headline.includes('outlined'));
});

test('the page: strict CSP, one nonce for the style and the bundled script, the data inert', () => {
  const data = shapeTreemap({ ...wire, children: [node('0x40', '</script><script>alert(1)</script>', 1000, 1000)] });
  const html = buildTreemapHtml({ heap: 'h2', heapLabel: 'B.json (h2)', title: 'Treemap of B.json', headline: 'x', data }, 'NONCE', 'vscode-webview://x', 'https://x/media/dist/treemap.js');
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1];
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-NONCE'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
  assert.equal((html.match(/<script nonce="NONCE" src="https:\/\/x\/media\/dist\/treemap.js"><\/script>/g) ?? []).length, 1);
  // every executable script carries the nonce; the data block is JSON and cannot close its element
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.deepEqual(scripts, [' type="application/json" id="treemap-data"', ' nonce="NONCE" src="https://x/media/dist/treemap.js"']);
  const json = /<script type="application\/json" id="treemap-data">([\s\S]*?)<\/script>/.exec(html)![1];
  assert.equal(JSON.parse(json).children[0].name, '</script><script>alert(1)</script>');
});
