// The leaks view's memory line (src/memory.ts): explain's `memory` as the
// first row under a heap with a leak diff, its label the RSS growth and the
// verdict, the parts in its description (numbers worked by hand, the CLIs'
// units), none when the daemon's answer has no `memory`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeapStore, TreeModel } from '../../src/model';
import { memoryLine, signedBytes } from '../../src/memory';
import * as fx from '../support/fixtures';

const MiB = 1024 * 1024;
const memory = {
  from: 'A',
  to: 'C',
  rss: [400 * MiB, 500 * MiB, 680 * MiB],
  rssGrowth: 280 * MiB,
  parts: [
    { name: 'rubyObjects', label: 'Ruby objects', bytes: 41 * MiB },
    { name: 'freeHeapSlots', label: 'free heap slots', bytes: null },
    { name: 'mallocFreeHeld', label: 'malloc free but held', bytes: 190 * MiB },
    { name: 'fileBacked', label: 'file-backed', bytes: -314573 },
  ],
  verdict: 'fragmentation',
  verdictText: 'bloat, not a leak: malloc holds freed memory (fragmentation) (68% of the RSS growth from A to C)',
  tryNext: ['MALLOC_ARENA_MAX=2'],
  notes: ['a note'],
  doc: 'docs/memory.md',
};

function setup(explain: object) {
  const store = new HeapStore();
  ['h1', 'h2', 'h3'].forEach((id, k) => store.addHeap(fx.heap(id, `${'ABC'[k]}.json`)));
  const model = new TreeModel(store, { referrers: async (p) => ({ address: p.address, total: 0, offset: 0, items: [] }) });
  store.setDiff({
    baseline: 'h1',
    target: 'h2',
    later: 'h3',
    groupBy: 'class',
    result: { groups: [], total: fx.explainLeaks.total },
    explain: explain as typeof fx.explainLeaks,
  });
  return model;
}

test('signed sizes by the CLIs\' unit rule', () => {
  assert.equal(signedBytes(41 * MiB), '+41.0 MiB');
  assert.equal(signedBytes(-314573), '-307.2 KiB');
  assert.equal(signedBytes(0), '+0 B');
});

test('the line: RSS growth and verdict, the recorded parts, what to try', () => {
  const line = memoryLine(memory);
  assert.equal(line.label, `Memory: RSS +280.0 MiB (A to C): ${memory.verdictText}`);
  assert.equal(line.description, 'Ruby objects +41.0 MiB, malloc free but held +190.0 MiB, file-backed -307.2 KiB');
  assert.match(line.tooltip, /^RSS \+280\.0 MiB \(A to C\)\n/);
  assert.match(line.tooltip, /\ntry: MALLOC_ARENA_MAX=2\nnote: a note\nthe numbers: docs\/memory\.md$/);
  const blind = memoryLine({ ...memory, rssGrowth: null, rss: null, verdictText: 'RSS was not recorded for A and C' });
  assert.equal(blind.label, 'Memory: RSS was not recorded for A and C');
  assert.match(blind.tooltip, /^RSS not recorded \(A to C\)\n/);
});

test('the leaks view shows it first, and nothing when the answer has no memory', async () => {
  const model = setup({ ...fx.explainLeaks, memory });
  const [, h2] = await model.children();
  const rows = await model.children(h2);
  assert.deepEqual(rows.slice(0, 2).map((n) => n.kind), ['info', 'info']);
  assert.equal(model.item(rows[0]).label, `Memory: RSS +280.0 MiB (A to C): ${memory.verdictText}`);
  assert.match(model.item(rows[1]).label, /^Leaked: /);

  const plain = setup(fx.explainLeaks);
  const [, p2] = await plain.children();
  const without = await plain.children(p2);
  assert.match(plain.item(without[0]).label, /^Leaked: /);
});
