import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ErrorCodes, Methods, describeError, errorReason, formatBytes, isCancelled, isMethodNotFound } from '../../src/protocol';

// out/test/unit -> clients/vscode -> repo root
const repo = path.resolve(__dirname, '../../../../..');

function headerMethods(): Map<string, string> {
  const text = fs.readFileSync(path.join(repo, 'protocol/method_names.h'), 'utf8');
  const names = new Map<string, string>();
  for (const match of text.matchAll(/constexpr std::string_view (k\w+) = "([^"]+)"/g)) names.set(match[2], match[1]);
  return names;
}

test('every method the extension sends is in protocol/method_names.h', () => {
  const known = headerMethods();
  assert.ok(known.size > 10, 'method_names.h parsed');
  for (const method of Object.values(Methods)) assert.ok(known.has(method), `${method} is not in protocol/method_names.h`);
});

test('error codes match protocol/error_codes.h', () => {
  const text = fs.readFileSync(path.join(repo, 'protocol/error_codes.h'), 'utf8');
  const codes = new Map<string, number>();
  for (const match of text.matchAll(/constexpr int k(\w+) = (-?\d+);/g)) codes.set(match[1], Number(match[2]));
  assert.equal(codes.get('MethodNotFound'), ErrorCodes.methodNotFound);
  assert.equal(codes.get('InvalidParams'), ErrorCodes.invalidParams);
  assert.equal(codes.get('RequestCancelled'), ErrorCodes.requestCancelled);
  assert.equal(codes.get('DomainError'), ErrorCodes.domainError);
  assert.equal(codes.get('ServerNotInitialized'), ErrorCodes.serverNotInitialized);
});

test('docs/protocol.md, when written, names every method the extension sends', (t) => {
  const doc = path.join(repo, 'docs/protocol.md');
  if (!fs.existsSync(doc)) {
    t.diagnostic('docs/protocol.md does not exist yet');
    return;
  }
  const text = fs.readFileSync(doc, 'utf8');
  for (const method of Object.values(Methods)) assert.ok(text.includes(method), `docs/protocol.md does not mention ${method}`);
});

test('error helpers read JSON-RPC error objects', () => {
  const domain = { code: -32803, message: 'no such file: /x.json', data: { reason: 'fileNotFound', path: '/x.json' } };
  assert.equal(errorReason(domain), 'fileNotFound');
  assert.equal(describeError(domain), 'no such file: /x.json (fileNotFound)');
  assert.equal(describeError({ code: -32803, message: 'fileNotFound: /x', data: { reason: 'fileNotFound' } }), 'fileNotFound: /x');
  assert.equal(describeError({ code: -32800, message: 'cancelled' }), 'Cancelled.');
  assert.equal(describeError(new Error('boom')), 'boom');
  assert.ok(isCancelled({ code: -32800, message: '' }));
  assert.ok(isMethodNotFound({ code: -32601, message: '' }));
  assert.ok(!isMethodNotFound({ code: -32602, message: '' }));
  assert.equal(errorReason('text'), undefined);
});

test('formatBytes prints what heapleak-client prints (human_bytes in clients/client/terminal.cpp)', () => {
  // Expected texts are human_bytes' output for the same inputs (compiled and run once).
  const cases: [number, string][] = [
    [0, '0 B'],
    [80, '80 B'],
    [999, '999 B'],
    [1000, '1.0 KiB'], // from 1000 on the next unit: tables stay narrow
    [1023, '1.0 KiB'],
    [1024, '1.0 KiB'],
    [1075, '1.0 KiB'],
    [1126, '1.1 KiB'],
    [1280, '1.2 KiB'], // 1.25 exactly: printf rounds the tie to even, toFixed would say 1.3
    [1536, '1.5 KiB'],
    [86648, '84.6 KiB'],
    [110648, '108.1 KiB'],
    [173406, '169.3 KiB'],
    [1023948, '999.9 KiB'],
    [1572864, '1.5 MiB'],
    [5 * 1024 * 1024 * 1024, '5.0 GiB'],
    [1500 * 1024 ** 4, '1500.0 TiB'],
  ];
  for (const [bytes, text] of cases) assert.equal(formatBytes(bytes), text, `formatBytes(${bytes})`);
  assert.equal(formatBytes(NaN), '?');
});
