// End-to-end test of `heapleakd --mcp` with the official MCP TypeScript SDK
// client (@modelcontextprotocol/sdk, pinned in package-lock.json): a leaky
// Ruby program written here dumps its heap three times; the client spawns
// heapleakd over StdioClientTransport, lists the tools (their schemas must
// compile), loads the three dumps (a progress notification must arrive),
// asks for the leaks (the first row must name the real holder), follows its
// path to a GC root, inspects it page by page, and checks the errors a model
// gets for a bad path, an unknown address and an unknown tool. The SDK
// validates every structuredContent against the tool's outputSchema.
//
//   node sdk_e2e.mjs HEAPLEAKD RUBY WORKDIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const [heapleakd, ruby, work] = process.argv.slice(2);
if (!work) {
  console.error('usage: node sdk_e2e.mjs HEAPLEAKD RUBY WORKDIR');
  process.exit(2);
}
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

// The leak: PriceCalculator memoises every quote in a class-level Hash that
// is never evicted. Traced, so rows carry allocation sites.
const PROGRAM = `
require 'objspace'
require 'json'
out = ARGV[0]
ObjectSpace.trace_object_allocations_start

module PriceCalculator
  Quote = Struct.new(:sku, :price, :currency)
  @_memo = {}
  def self.quote(sku)
    @_memo[sku] ||= Quote.new(sku, sku.hash % 1000, "EUR for #{sku}")
  end

  def self.memo
    @_memo
  end
end

def traffic(round)
  500.times { |i| PriceCalculator.quote("sku-#{round}-#{i}") }
  garbage = Array.new(2000) { |i| "garbage #{i}" * 2 }
  garbage.clear
end

def dump(out, name)
  GC.start
  File.open(File.join(out, "#{name}.json"), 'w') { |f| ObjectSpace.dump_all(output: f) }
end

traffic(0)
dump(out, 'A')
traffic(1)
dump(out, 'B')
traffic(2)
dump(out, 'C')
File.write(File.join(out, 'holder.txt'), JSON.parse(ObjectSpace.dump(PriceCalculator.memo))['address'])
`;
fs.writeFileSync(path.join(work, 'leaky.rb'), PROGRAM);
execFileSync(ruby, [path.join(work, 'leaky.rb'), work], { stdio: 'inherit' });
const holder = fs.readFileSync(path.join(work, 'holder.txt'), 'utf8').trim();
const dumps = ['A', 'B', 'C'].map((name) => path.join(work, `${name}.json`));

const text = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
let checks = 0;
const check = async (what, fn) => {
  await fn();
  checks += 1;
  console.log(`ok ${checks} - ${what}`);
};

const transport = new StdioClientTransport({
  command: heapleakd,
  args: ['--mcp', '--log=info'],
  stderr: 'pipe',
});
let stderr = '';
transport.stderr?.on('data', (chunk) => { stderr += chunk; });
let negotiated = null; // the client tells its transport the version initialize agreed on
transport.setProtocolVersion = (version) => { negotiated = version; };
const client = new Client({ name: 'heapleak-sdk-e2e', version: '1.0.0' });
try {
  await client.connect(transport);
  await check('initialize: server info and tools capability', () => {
    assert.equal(client.getServerVersion().name, 'heapleakd');
    assert.deepEqual(client.getServerCapabilities().tools, { listChanged: false });
    assert.match(client.getInstructions(), /find_leaks/);
  });
  await check(`negotiated the SDK's latest protocol version ${LATEST_PROTOCOL_VERSION}`, () => {
    assert.equal(negotiated, LATEST_PROTOCOL_VERSION);
  });

  const { tools, nextCursor } = await client.listTools();
  await check('tools/list: every tool, each schema a valid JSON Schema', () => {
    assert.equal(nextCursor, undefined);
    const names = tools.map((t) => t.name).sort();
    for (const name of ['load_dump', 'list_heaps', 'unload_heap', 'find_leaks', 'leak_stats',
      'common_retainer', 'owner', 'path_to_root', 'inspect_object', 'top_retainers']) {
      assert.ok(names.includes(name), `tool ${name} listed`);
    }
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} inputSchema`);
      assert.ok(tool.description.length > 20, `${tool.name} has a description`);
      ajv.compile(tool.inputSchema);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} outputSchema`);
      ajv.compile(tool.outputSchema);
    }
  });

  const progress = [];
  const heaps = [];
  for (const [k, dump] of dumps.entries()) {
    const name = ['A', 'B', 'C'][k];
    const result = await client.callTool({ name: 'load_dump', arguments: { path: dump, name } },
      undefined, { onprogress: (p) => progress.push(p) });
    assert.ok(!result.isError, text(result));
    heaps.push(result.structuredContent.heap);
    await check(`load_dump ${name}: heap ${result.structuredContent.heap}, traced`, () => {
      assert.equal(result.structuredContent.name, name);
      assert.equal(result.structuredContent.traced, true);
      assert.ok(result.structuredContent.objects > 10000);
      assert.match(text(result), new RegExp(`as heap ${result.structuredContent.heap} `));
    });
  }
  await check('progress notifications arrived during the loads', () => {
    assert.ok(progress.length >= 3, `got ${progress.length}`);
    for (const p of progress) {
      assert.equal(p.total, 100);
      assert.ok(p.progress >= 0 && p.progress <= 100);
    }
  });

  const listed = await client.callTool({ name: 'list_heaps', arguments: {} });
  await check('list_heaps shows the three heaps', () => {
    assert.deepEqual(listed.structuredContent.heaps.map((h) => h.name), ['A', 'B', 'C']);
    assert.match(text(listed), /3 heaps loaded/);
  });

  const leaks = await client.callTool({
    name: 'find_leaks', arguments: { baseline: 'A', target: 'B', later: 'C', limit: 1 },
  });
  console.log(text(leaks));
  const first = leaks.structuredContent.leaks[0];
  await check(`find_leaks: the first row is held by PriceCalculator.@_memo (${holder})`, () => {
    assert.ok(!leaks.isError, text(leaks));
    assert.equal(first.holder.address, holder);
    assert.match(first.key, /Hash in PriceCalculator/);
    assert.ok(first.count >= 500, `count ${first.count}`);
    assert.deepEqual(first.growth && [first.growth.baseline, first.growth.target, first.growth.later],
      [500, 1000, 1500]);
    assert.ok(first.objects.some((o) => /PriceCalculator::Quote/.test(o.name)));
  });
  await check('find_leaks text is the CLIs\' rows naming the holder, not raw JSON', () => {
    const t = text(leaks);
    // The rows first; the memory block last (no manifests here: RSS not recorded).
    assert.match(t, /^Leaks by bytes retained \(/);
    assert.match(t, /\n\nMemory: RSS not recorded [^\n]*\n   try: /);
    assert.match(t, /\(\S+ 500 -> 1,000 -> 1,500\)/);
    assert.match(t, /Hash in PriceCalculator/);
    assert.ok(t.includes(holder));
    assert.ok(!t.trim().startsWith('{'));
    assert.ok(t.length < 4000, `${t.length} characters`);
  });
  await check('find_leaks pages: limit 1 gives one row and the next offset', () => {
    assert.equal(leaks.structuredContent.leaks.length, 1);
    if (leaks.structuredContent.leakCount > 1) {
      assert.equal(leaks.structuredContent.nextOffset, 1);
      assert.match(text(leaks), /offset=1/);
    }
  });

  const route = await client.callTool({ name: 'path_to_root', arguments: { heap: 'B', address: holder } });
  await check('path_to_root: a GC root reaches the holder through PriceCalculator', () => {
    assert.ok(!route.isError, text(route));
    assert.equal(route.structuredContent.path.at(-1), holder);
    assert.ok(route.structuredContent.objects.some((o) => o.name === 'PriceCalculator'));
    assert.match(text(route), /^ROOT \S+ reaches the object/);
  });

  const inspected = await client.callTool({
    name: 'inspect_object', arguments: { heap: 'B', address: holder, limit: 2 },
  });
  await check('inspect_object: the holder, its referrers, a page of its references', () => {
    assert.ok(!inspected.isError, text(inspected));
    const { object, referrers, references } = inspected.structuredContent;
    assert.equal(object.address, holder);
    assert.equal(object.type, 'HASH');
    assert.ok(referrers.items.some((o) => o.name === 'PriceCalculator'));
    assert.ok(references.total >= 1000, `references ${references.total}`);
    assert.equal(references.items.length, 2);
    assert.equal(references.nextOffset, 2);
    assert.match(text(inspected), /referencesOffset=2/);
  });
  const page2 = await client.callTool({
    name: 'inspect_object', arguments: { heap: 'B', address: holder, limit: 2, referencesOffset: 2 },
  });
  await check('inspect_object: the next page of references', () => {
    const { references } = page2.structuredContent;
    assert.equal(references.offset, 2);
    assert.notEqual(references.items[0].address, inspected.structuredContent.references.items[0].address);
  });

  const owned = await client.callTool({ name: 'owner', arguments: { heap: 'B', addresses: first.samples.slice(0, 3) } });
  await check('owner of the leaked samples retains bytes', () => {
    assert.ok(!owned.isError, text(owned));
    assert.ok(owned.structuredContent.owners.length >= 1);
  });
  const retainer = await client.callTool({ name: 'common_retainer', arguments: { heap: 'B', addresses: first.samples.slice(0, 3) } });
  await check('common_retainer of the samples is reached from the holder', () => {
    assert.ok(!retainer.isError, text(retainer));
    assert.equal(retainer.structuredContent.dot, undefined);
    assert.ok(retainer.structuredContent.retainer);
  });
  const top = await client.callTool({ name: 'top_retainers', arguments: { heap: 'B', limit: 3 } });
  await check('top_retainers pages', () => {
    assert.equal(top.structuredContent.retainers.length, 3);
    assert.equal(top.structuredContent.nextOffset, 3);
  });

  const badPath = await client.callTool({ name: 'load_dump', arguments: { path: path.join(work, 'nope.json') } });
  await check('a bad path is an isError result naming the reason', () => {
    assert.equal(badPath.isError, true);
    assert.match(text(badPath), /fileNotFound: .*nope\.json/);
  });
  const badAddress = await client.callTool({ name: 'inspect_object', arguments: { heap: 'B', address: '0x1' } });
  await check('an unknown address is an isError result', () => {
    assert.equal(badAddress.isError, true);
    assert.match(text(badAddress), /unknownAddress/);
  });
  const notAnAddress = await client.callTool({ name: 'path_to_root', arguments: { heap: 'B', address: 'zz' } });
  await check('a malformed argument is an isError result in the tool\'s words', () => {
    assert.equal(notAnAddress.isError, true);
    assert.match(text(notAnAddress), /arguments\.address: 'zz' is not an address/);
  });
  await check('an unknown tool is a JSON-RPC error', () =>
    assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error) => {
      assert.equal(error.code, -32602);
      assert.match(error.message, /unknown tool: no_such_tool/);
      return true;
    }));
  await check('ping', async () => assert.deepEqual(await client.ping(), {}));
} finally {
  await client.close();
}
// Stateless clients (the MCP Inspector's CLI starts one server per call): a
// tool that takes a heap takes a dump path, loaded on first use; in one session
// it is reused while the file is unchanged and reloaded when a dump rewrote it.
const session = async (fn) => {
  const t = new StdioClientTransport({ command: heapleakd, args: ['--mcp'], stderr: 'ignore', cwd: work });
  const c = new Client({ name: 'heapleak-sdk-stateless', version: '1.0.0' });
  await c.connect(t);
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
};
const byPath = await session((c) =>
  c.callTool({ name: 'find_leaks', arguments: { baseline: 'A.json', target: 'B.json', later: dumps[2], limit: 1 } }));
await check('stateless: find_leaks on dump paths (relative and absolute) with nothing loaded before', () => {
  assert.ok(!byPath.isError, text(byPath));
  assert.equal(byPath.structuredContent.leaks[0].holder.address, holder);
  assert.equal(byPath.structuredContent.loaded.length, 3);
  assert.deepEqual(byPath.structuredContent.files, { baseline: 'A.json', target: 'B.json', later: 'C.json' });
  assert.match(text(byPath), /in B\.json/);
});
for (const [tool, args] of [['path_to_root', { heap: dumps[1], address: holder }],
  ['inspect_object', { heap: 'B.json', address: holder, limit: 2 }],
  ['owner', { heap: dumps[1], addresses: [holder] }],
  ['top_retainers', { heap: dumps[1], limit: 2 }],
  ['leak_stats', { baseline: dumps[0], target: dumps[1], later: dumps[2] }]]) {
  const result = await session((c) => c.callTool({ name: tool, arguments: args }));
  await check(`stateless: ${tool} on a dump path`, () => assert.ok(!result.isError, text(result)));
}
await session(async (c) => {
  const args = { baseline: dumps[0], target: dumps[1], later: dumps[2], limit: 1 };
  await c.callTool({ name: 'find_leaks', arguments: args });
  const again = await c.callTool({ name: 'find_leaks', arguments: args });
  await check('one session: an unchanged dump is reused, not loaded again', () => {
    assert.equal(again.structuredContent.loaded, undefined);
    assert.equal(again.structuredContent.reloaded, undefined);
  });
  fs.copyFileSync(dumps[0], dumps[2] + '.new');
  fs.renameSync(dumps[2] + '.new', dumps[2]); // "the fix": C dumped again, without the leak
  const fixed = await c.callTool({ name: 'find_leaks', arguments: args });
  await check('one session: a rewritten dump is reloaded, and the answer is the new file\'s', () => {
    assert.equal(fixed.structuredContent.reloaded.length, 1);
    assert.equal(fixed.structuredContent.reloaded[0].path, dumps[2]);
    assert.notEqual(fixed.structuredContent.leaks[0]?.holder?.address, holder);
  });
});

// stdout carried MCP only (the SDK would have failed on anything else); the log went to stderr.
assert.match(stderr, /mcp: protocol /);
assert.ok(!/ERROR: AddressSanitizer|runtime error:/.test(stderr), stderr);
console.log(`${checks} checks passed`);
