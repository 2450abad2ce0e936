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

test('formatBytes', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(173406), '169 KiB');
  assert.equal(formatBytes(5 * 1024 * 1024 * 1024), '5.0 GiB');
});
