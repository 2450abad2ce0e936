import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GraphTooLargeError, buildGraphHtml, countDotNodes, makeNonce, pathToDot, renderDot, retainerHeadline, sanitizeSvg } from '../../src/graph';
import * as fx from '../support/fixtures';

test('countDotNodes counts node statements, not edges or comments', () => {
  assert.equal(countDotNodes(fx.rootDot), 6);
  assert.equal(countDotNodes('digraph { "a" -> "b"; }'), 0);
});

test('renderDot draws the daemon dot to SVG with the addresses as node titles', async () => {
  const svg = await renderDot(fx.rootDot, 200);
  assert.ok(svg.startsWith('<svg'), svg.slice(0, 80));
  assert.ok(svg.endsWith('</svg>'));
  assert.match(svg, /<title>0x7fb34b918f38<\/title>/);
  assert.match(svg, /class="node"/);
  assert.match(svg, /stroke="red"/);
  assert.doesNotMatch(svg, /<!DOCTYPE|<\?xml/);
});

test('renderDot refuses graphs over the cap', async () => {
  await assert.rejects(renderDot(fx.rootDot, 5), (e: unknown) => e instanceof GraphTooLargeError && e.nodes === 6 && /maxNodes \(5\)/.test(e.message));
});

test('sanitizeSvg removes scripts, handlers, foreign objects and outside links', () => {
  const dirty =
    '<?xml version="1.0"?><svg onload="x()"><script>alert(1)</script><a xlink:href="https://evil/">t</a>' +
    '<a href="#local">l</a><foreignObject><div/></foreignObject><g onclick=\'y()\'/></svg>trailing';
  const clean = sanitizeSvg(dirty);
  assert.equal(clean, '<svg><a>t</a><a href="#local">l</a><g/></svg>');
});

test('the webview page has a strict CSP: no remote content, one nonced script', () => {
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9]{16,}$/);
  const html = buildGraphHtml(
    { kind: 'retainer', title: 'Retainer of User', heap: 'h2', heapLabel: 'B.json (h2)', headline: 'Retainer: 0x7f <Hash>', details: ['a & b'], svg: '<svg></svg>' },
    nonce,
    'vscode-webview://abc',
  );
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1];
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, new RegExp(`script-src 'nonce-${nonce}'`));
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
  const scripts = [...html.matchAll(/<script([^>]*)>/g)];
  assert.equal(scripts.length, 1);
  assert.equal(scripts[0][1], ` nonce="${nonce}"`);
  assert.doesNotMatch(html, /https?:\/\//);
  assert.match(html, /Retainer: 0x7f &lt;Hash&gt;/);
  assert.match(html, /<li>a &amp; b<\/li>/);
  assert.match(html, /postMessage\(\{ type: 'inspect', address \}\)/);
});

test('retainerHeadline names the retainer and its allocation site', () => {
  const { headline, details } = retainerHeadline(fx.root, 3);
  assert.equal(headline, 'Retainer: 0x7fb34b918f38 HASH allocated at tests/gen/leakgen.rb:88, 1 hop from 3 samples');
  assert.deepEqual(details, ['held from GC root "vm" through 2 objects']);
  assert.match(retainerHeadline({ ...fx.root, retainer: null, rootPath: undefined }, 3).headline, /No common retainer/);
});

test('retainerHeadline uses the wire name, and says when the samples are split between containers', () => {
  const named = { ...fx.root, retainerObject: { ...fx.root.retainerObject!, name: 'Hash' } };
  assert.match(retainerHeadline(named, 3).headline, /^Retainer: 0x7fb34b918f38 Hash allocated at/);
  const split = {
    ...fx.root,
    split: true,
    groups: [
      { retainer: { address: '0x7fb34b918f38', type: 'HASH', class: 'Hash', key: 'HASH', name: 'Hash' }, samples: ['0x7fb34b7a80b8', '0x7fb34b7a8270'] },
      { retainer: { address: '0x7fb34b9190a0', type: 'ARRAY', key: 'ARRAY', name: 'Array' }, samples: ['0x7fb34b7a8428'] },
    ],
  };
  assert.deepEqual(retainerHeadline(split, 3).details, [
    'the samples are split: 2 containers hold them',
    '0x7fb34b918f38 Hash holds 2 of them',
    '0x7fb34b9190a0 Array holds 1 of them',
    'held from GC root "vm" through 2 objects',
  ]);
});

test('pathToDot draws root -> ... -> object and renders', async () => {
  const dot = pathToDot(fx.path);
  assert.match(dot, /"ROOT:vm" -> "0x7fb34ee6a858";/);
  assert.match(dot, /"0x7fb34b918f38" -> "0x7fb34b7a80b8";/);
  assert.match(dot, /label="0x7fb34b7a80b8\\nUser\\ntests\/gen\/leakgen.rb:120"/);
  const svg = await renderDot(dot, 10);
  assert.match(svg, /<title>0x7fb34b7a80b8<\/title>/);
});

test('pathToDot quotes the root name and shows control characters: no spoofed node, well-formed SVG', async () => {
  // A root name from a forged dump that closes its string to add a node.
  const root = 'vm" -> "0xdead"; "0xdead" [label="spoofed';
  const [first] = fx.path.path;
  const objects = fx.path.objects.map((o) =>
    o.address === first ? { ...o, name: 'Evil\u001b[31m\u0007\uffff\ud800Name' } : o,
  );
  const dot = pathToDot({ ...fx.path, root, objects });
  assert.doesNotMatch(dot, /"0xdead" \[label/);
  assert.match(dot, /"ROOT:vm\\" -> \\"0xdead\\"; /);
  assert.doesNotMatch(dot, /[\u0000-\u0009\u000b-\u001f\u007f\uffff]/);
  assert.match(dot, /Evil\\\\x1b\[31m\\\\x07\\\\uFFFF\\\\uD800Name/);
  const svg = await renderDot(dot, 20);
  assert.doesNotMatch(svg, /<title>0xdead<\/title>/);
  assert.doesNotMatch(svg, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/);
});
