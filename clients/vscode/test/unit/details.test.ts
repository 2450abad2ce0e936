import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectDocument, objectDocumentPath, parseObjectDocumentPath, pathDocument, resolveSite, siteRange } from '../../src/details';
import * as fx from '../support/fixtures';

test('object documents: header, counts, the dump record', () => {
  const text = objectDocument('B.json (h2)', fx.object);
  const lines = text.split('\n');
  assert.equal(lines[0], '// heapleak: object 0x7fb34b7a80b8 in heap B.json (h2)');
  assert.equal(lines[1], '// User (OBJECT), 80 B');
  assert.equal(lines[2], '// allocated at tests/gen/leakgen.rb:120 (GC generation 19)');
  assert.equal(lines[3], '// 1 referrer, 3 references');
  assert.deepEqual(JSON.parse(lines.slice(5).join('\n')), fx.object.record);
  const range = siteRange(text)!;
  assert.deepEqual(range, { line: 2, start: 16, end: 16 + 'tests/gen/leakgen.rb:120'.length, file: 'tests/gen/leakgen.rb', fileLine: 120 });
});

test('object document paths round-trip', () => {
  const p = objectDocumentPath('h2', '0x7fb34b7a80b8');
  assert.equal(p, '/h2/0x7fb34b7a80b8.jsonc');
  assert.deepEqual(parseObjectDocumentPath(p), { heap: 'h2', address: '0x7fb34b7a80b8' });
  assert.equal(parseObjectDocumentPath('/answers/1/x.json'), undefined);
});

test('allocation sites resolve to workspace files', () => {
  const files = new Set(['/ws/tests/gen/leakgen.rb', '/abs/app.rb', '/ws2/lib/user_cache.rb']);
  const exists = (p: string) => files.has(p);
  assert.equal(resolveSite('tests/gen/leakgen.rb', ['/ws'], exists), '/ws/tests/gen/leakgen.rb');
  assert.equal(resolveSite('/abs/app.rb', ['/ws'], exists), '/abs/app.rb');
  // a path from a container: the longest tail that exists in a folder
  assert.equal(resolveSite('/app/lib/user_cache.rb', ['/ws', '/ws2'], exists), '/ws2/lib/user_cache.rb');
  assert.equal(resolveSite('/gems/rack.rb', ['/ws'], exists), undefined);
  assert.equal(resolveSite('<internal:kernel>', ['/ws'], exists), undefined);
  assert.equal(resolveSite('', ['/ws'], exists), undefined);
});

test('path documents indent from the root', () => {
  const text = pathDocument('B.json (h2)', '0x7fb34b7a80b8', fx.path);
  assert.match(text, /^\/\/ heapleak: path from GC root "vm" to 0x7fb34b7a80b8/);
  assert.match(text, /\n      0x7fb34b7a80b8 User  \(tests\/gen\/leakgen.rb:120\)\n$/);
});

test('documents use the wire name when the daemon sends it', () => {
  const named = { ...fx.object, type: 'STRUCT', class: 'PriceCalculator::Quote', key: 'STRUCT', name: 'PriceCalculator::Quote' };
  assert.equal(objectDocument('B.json (h2)', named).split('\n')[1], '// PriceCalculator::Quote (STRUCT), STRUCT, 80 B');
  const path = { ...fx.path, objects: fx.path.objects.map((o) => (o.key === 'CLASS:UserCache' ? { ...o, name: 'UserCache' } : o)) };
  assert.match(pathDocument('B.json (h2)', '0x7fb34b7a80b8', path), /\n  0x7fb34b918fb0 UserCache\n/);
});
