// `heapleakd --mcp` driven by the MCP Inspector's CLI
// (@modelcontextprotocol/inspector, pinned in package-lock.json), which
// starts one server per call: nothing a call loads survives to the next, so
// each tool that takes a heap is given the dump's path. On the public rbheap
// fixtures (tests/fixtures/rbheap-3dump), relative paths from the server's
// working directory and absolute ones.
//
//   node inspector_cli.mjs HEAPLEAKD FIXTURES_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [heapleakd, fixtures] = process.argv.slice(2);
if (!fixtures) {
  console.error('usage: node inspector_cli.mjs HEAPLEAKD FIXTURES_DIR');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const inspector = path.join(here, 'node_modules', '.bin', 'mcp-inspector');
const dir = path.join(fixtures, 'rbheap-3dump');
const [h1, h2, h3] = [1, 2, 3].map((k) => path.join(dir, `heap${k}.jsonl.gz`));
const ARRAY = '0x7f9f030a37d8'; // Leaky.@leak in heap2: holds every leaked string

// One Inspector CLI run: a fresh heapleakd, one request, its JSON answer.
const call = (method, tool, args = {}) => {
  const argv = ['--cli', heapleakd, '--mcp', '--method', method];
  if (tool) argv.push('--tool-name', tool);
  for (const [key, value] of Object.entries(args)) argv.push('--tool-arg', `${key}=${value}`);
  const out = execFileSync(inspector, argv, { cwd: dir, encoding: 'utf8', timeout: 120000 });
  return JSON.parse(out);
};
const text = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
let checks = 0;
const check = (what, fn) => {
  fn();
  checks += 1;
  console.log(`ok ${checks} - ${what}`);
};

const listed = call('tools/list');
check('tools/list: the heap arguments take a dump path', () => {
  const findLeaks = listed.tools.find((t) => t.name === 'find_leaks');
  assert.match(findLeaks.inputSchema.properties.baseline.description, /path/);
  const inspect = listed.tools.find((t) => t.name === 'inspect_object');
  assert.match(inspect.inputSchema.properties.heap.description, /loaded on first use/);
});

const leaks = call('tools/call', 'find_leaks', { baseline: 'heap1.jsonl.gz', target: 'heap2.jsonl.gz', later: h3 });
check('find_leaks on three dump paths, nothing loaded before (one server per call)', () => {
  assert.ok(!leaks.isError, text(leaks));
  assert.equal(leaks.structuredContent.leaks[0].holder.address, ARRAY);
  // B loaded, A and C streamed against it (the daemon's diff in B's memory).
  assert.equal(leaks.structuredContent.loaded.length, 1);
  assert.deepEqual(leaks.structuredContent.streamed.map((s) => s.name), ['heap1.jsonl.gz', 'heap3.jsonl.gz']);
  // The rows first; without manifests the memory block comes last.
  assert.match(text(leaks), /^Leaks by bytes retained \(53 objects, 2\.1 KiB new in heap2\.jsonl\.gz since heap1\.jsonl\.gz/);
  assert.match(text(leaks), /\n\nMemory: RSS not recorded \(A to C\): /);
});

const loaded = call('tools/call', 'load_dump', { path: h2 });
const byId = call('tools/call', 'find_leaks', { baseline: 'h1', target: loaded.structuredContent.heap });
check('an id from an earlier call means nothing to the next server (why paths are needed)', () => {
  assert.equal(byId.isError, true);
  assert.match(text(byId), /unknownHeap/);
});

const pathToRoot = call('tools/call', 'path_to_root', { heap: h2, address: ARRAY });
check('path_to_root on a dump path', () => {
  assert.ok(!pathToRoot.isError, text(pathToRoot));
  assert.equal(pathToRoot.structuredContent.root, 'vm'); // the stack's word pointing at Leaky comes last
});
const inspected = call('tools/call', 'inspect_object', { heap: 'heap2.jsonl.gz', address: ARRAY });
check('inspect_object on a relative dump path', () => {
  assert.ok(!inspected.isError, text(inspected));
  assert.equal(inspected.structuredContent.object.type, 'ARRAY');
});
const stats = call('tools/call', 'leak_stats', { baseline: h1, target: h2, later: h3 });
check('leak_stats on dump paths', () => {
  assert.ok(!stats.isError, text(stats));
  assert.equal(stats.structuredContent.groups[0].count, 53);
});
const missing = call('tools/call', 'find_leaks', { baseline: 'nope.json', target: h2 });
check('a path that is no file is fileNotFound, never another heap', () => {
  assert.equal(missing.isError, true);
  assert.match(text(missing), /fileNotFound/);
});
console.log(`${checks} checks passed`);
