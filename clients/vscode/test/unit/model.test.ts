import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeapStore, ObjectNode, TreeModel, TreeNode } from '../../src/model';
import { RelatedResult } from '../../src/protocol';
import * as fx from '../support/fixtures';

function setup(total = 3) {
  const store = new HeapStore();
  const calls: { heap: string; address: string; offset?: number; limit?: number }[] = [];
  const source = {
    async referrers(params: { heap: string; address: string; offset?: number; limit?: number }): Promise<RelatedResult> {
      calls.push(params);
      const offset = params.offset ?? 0;
      const items = [];
      for (let k = offset; k < Math.min(total, offset + (params.limit ?? 50)); k++) {
        items.push({ address: `0x10${k}`, type: 'HASH', class: 'Hash', key: 'HASH', memsize: 160, file: 'app/cache.rb', line: 7 });
      }
      return { address: params.address, total, offset, items };
    },
  };
  return { store, calls, model: new TreeModel(store, source, 2) };
}

test('root lists heaps in load order; a heap without a diff says what to do', async () => {
  const { store, model } = setup();
  store.addHeap(fx.heap('h1', 'A.json'));
  store.addHeap(fx.heap('h2', 'B.json'));
  const roots = await model.children();
  assert.deepEqual(roots.map((n) => n.kind === 'heap' && n.heap), ['h1', 'h2']);
  const item = model.item(roots[0]);
  assert.equal(item.label, 'A.json');
  assert.match(item.description!, /h1 · 63,237 objects · 4\.3 MiB/);
  assert.equal(item.contextValue, 'heap');
  assert.equal(item.collapsible, 'collapsed');
  const kids = await model.children(roots[0]);
  assert.equal(kids.length, 1);
  assert.equal(kids[0].kind, 'info');
  assert.match(model.item(kids[0]).tooltip!, /Run Leak Diff/);
});

test('heap -> summary + leak groups (count, bytes) -> samples', async () => {
  const { store, model } = setup();
  ['h1', 'h2', 'h3'].forEach((id, k) => store.addHeap(fx.heap(id, `${'ABC'[k]}.json`)));
  store.setDiff({ baseline: 'h1', target: 'h2', later: 'h3', groupBy: 'class', result: fx.stats });
  const [h1, h2] = await model.children();
  assert.equal(model.item(h2).collapsible, 'expanded');
  assert.equal(h1.id, 'heap:h1');
  assert.equal(h2.id, 'heap:h2#diff1', 'a diff renames the heap row so VS Code expands it');
  const kids = await model.children(h2);
  assert.equal(kids.length, 3);
  const summary = model.item(kids[0]);
  assert.equal(summary.label, 'Leaked: 2,105 objects, 108.1 KiB'); // units as heapleak-client prints them
  assert.equal(summary.description, 'A.json (h1) → B.json (h2) → C.json (h3)');
  const user = model.item(kids[2]);
  assert.equal(user.label, 'User');
  assert.equal(user.description, '300 objects, 23.4 KiB');
  assert.equal(user.contextValue, 'group');
  const samples = await model.children(kids[2]);
  assert.deepEqual(samples.map((n) => (n as ObjectNode).address), fx.stats.groups[1].samples);
  const sample = model.item(samples[0]);
  assert.equal(sample.label, '0x7fb34b7a80b8');
  assert.equal(sample.description, 'User');
  assert.equal(sample.contextValue, 'object');
  assert.deepEqual(sample.command, { command: 'heapleak.inspectObject', title: 'Inspect Object', arguments: [samples[0]] });
  // ids are unique along the path, so one address can sit in two places
  assert.notEqual(samples[0].id, (await model.children(kids[1]))[0].id);
});

test('referrers are fetched lazily, a page at a time, from the sample heap', async () => {
  const { store, model, calls } = setup(3);
  store.addHeap(fx.heap('h2', 'B.json'));
  store.setDiff({ baseline: 'h1', target: 'h2', groupBy: 'class', result: fx.stats });
  const [h2] = await model.children();
  const groups = await model.children(h2);
  const samples = await model.children(groups[2]);
  assert.equal(calls.length, 0, 'nothing fetched before an object is expanded');
  const page1 = await model.children(samples[0]);
  assert.deepEqual(calls, [{ heap: 'h2', address: '0x7fb34b7a80b8', offset: 0, limit: 2 }]);
  assert.deepEqual(page1.map((n) => n.kind), ['object', 'object', 'more']);
  const ref = model.item(page1[0]);
  assert.equal(ref.description, 'HASH · 160 B');
  assert.equal(ref.contextValue, 'objectWithSite');
  assert.match(ref.tooltip!, /allocated at app\/cache\.rb:7/);
  assert.equal(model.item(page1[2]).label, '1 more referrers…');
  const page2 = await model.children(page1[2]);
  assert.deepEqual(calls[1], { heap: 'h2', address: '0x7fb34b7a80b8', offset: 2, limit: 2 });
  assert.deepEqual(page2.map((n) => (n as ObjectNode).address), ['0x102']);
  // referrers of referrers
  await model.children(page1[0]);
  assert.equal(calls[2].address, '0x100');
});

test('no referrers and failures show as rows, not exceptions', async () => {
  const { store, model } = setup(0);
  const failing = new TreeModel(store, { referrers: async () => Promise.reject({ code: -32803, message: 'no heap h9' }) });
  const node: TreeNode = { kind: 'object', id: 'x', heap: 'h2', address: '0x1', role: 'sample' };
  const none = await model.children(node);
  assert.equal(none.length, 1);
  assert.match(model.item(none[0]).label, /No referrers/);
  const failed = await failing.children(node);
  assert.equal(failed[0].kind === 'info' && failed[0].error, true);
  assert.match(failing.item(failed[0]).label, /no heap h9/);
});

test('unloading a heap drops the diffs that used it, and tells listeners', () => {
  const { store } = setup();
  let changes = 0;
  store.onDidChange(() => changes++);
  ['h1', 'h2', 'h3'].forEach((id) => store.addHeap(fx.heap(id, `${id}.json`)));
  store.setDiff({ baseline: 'h1', target: 'h2', later: 'h3', groupBy: 'class', result: fx.stats });
  store.removeHeap('h3');
  assert.equal(store.diffFor('h2'), undefined);
  assert.deepEqual(store.heaps.map((h) => h.heap), ['h1', 'h2']);
  assert.equal(changes, 5);
});
