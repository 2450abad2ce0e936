// Retainer graphs: dot (from the daemon, or built here for a root path) ->
// SVG with @hpcc-js/wasm-graphviz in the extension host -> a webview page
// with a strict Content-Security-Policy (no remote content, one nonce'd
// script). Pure Node; the webview panel itself is the extension's business.

import { randomBytes } from 'node:crypto';
import { ObjectBrief, RootPathResult, RootResult } from './protocol';

type GraphvizInstance = { dot(source: string, format?: 'svg'): string };
let graphvizLoading: Promise<GraphvizInstance> | undefined;

async function loadGraphviz(): Promise<GraphvizInstance> {
  if (!graphvizLoading) {
    graphvizLoading = import('@hpcc-js/wasm-graphviz').then((module) => module.Graphviz.load());
    graphvizLoading.catch(() => (graphvizLoading = undefined));
  }
  return graphvizLoading;
}

export class GraphTooLargeError extends Error {
  constructor(
    readonly nodes: number,
    readonly maxNodes: number,
  ) {
    super(`The graph has ${nodes} nodes, more than heapleak.graph.maxNodes (${maxNodes}); raise the setting to draw it.`);
    this.name = 'GraphTooLargeError';
  }
}

/** Counts node statements in dot (lines `"id" [...]`), the renderer's size guard. */
export function countDotNodes(dot: string): number {
  const ids = new Set<string>();
  for (const match of dot.matchAll(/^\s*"((?:[^"\\]|\\.)*)"\s*\[/gm)) ids.add(match[1]);
  return ids.size;
}

export async function renderDot(dot: string, maxNodes: number): Promise<string> {
  const nodes = countDotNodes(dot);
  if (nodes > maxNodes) throw new GraphTooLargeError(nodes, maxNodes);
  const graphviz = await loadGraphviz();
  return sanitizeSvg(graphviz.dot(dot, 'svg'));
}

/**
 * Keeps the <svg> element only and drops what could load or run anything:
 * scripts, foreignObject, event handlers, and links other than in-page ones.
 * Graphviz does not emit these for our dot, but labels come from the dump.
 */
export function sanitizeSvg(svg: string): string {
  const start = svg.indexOf('<svg');
  const end = svg.lastIndexOf('</svg>');
  let out = start >= 0 && end > start ? svg.slice(start, end + 6) : '';
  out = out.replace(/<script[\s\S]*?<\/script>/gi, '');
  out = out.replace(/<foreignObject[\s\S]*?<\/foreignObject>/gi, '');
  out = out.replace(/\son[a-z]+\s*=\s*("[^"]*"|'[^']*')/gi, '');
  out = out.replace(/\s(xlink:href|href)\s*=\s*("(?!#)[^"]*"|'(?!#)[^']*')/gi, '');
  return out;
}

export function makeNonce(): string {
  return randomBytes(16).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * A quoted DOT string. Dump text (class names, paths, root names) is user
 * data: quotes and backslashes are escaped so a label cannot close its string
 * and spoof nodes, and control characters, U+FFFE/U+FFFF and lone surrogates
 * (which make Graphviz write ill-formed SVG) are shown as \xNN / \uNNNN.
 */
export function dotString(text: string): string {
  const shown = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(
      /[\u0000-\u001f\u007f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      (c) => {
        const code = c.charCodeAt(0);
        return code < 0x100 ? `\\\\x${code.toString(16).padStart(2, '0')}` : `\\\\u${code.toString(16).toUpperCase()}`;
      },
    );
  return `"${shown}"`;
}

function briefLabel(object: ObjectBrief): string {
  const lines = [object.address, object.name ?? object.key ?? (object.class ? `${object.class} ${object.type}` : object.type)];
  if (object.file) lines.push(`${object.file}:${object.line ?? 0}`);
  return lines.join('\n');
}

/** A root path drawn like the daemon's graphs: GC root ellipse, then holder -> held. */
export function pathToDot(result: RootPathResult): string {
  const byAddress = new Map(result.objects.map((o) => [o.address, o]));
  // The root's name comes from the dump: quoted like every other string.
  const rootNode = dotString(`ROOT:${result.root}`);
  const lines = [
    'digraph path {',
    'rankdir=RL',
    'node [shape=box, fontname="monospace", fontsize=10];',
    `${rootNode} [shape=ellipse, style=filled, fillcolor=lightgrey, label=${dotString(`GC root\n${result.root}`)}];`,
  ];
  result.path.forEach((address, k) => {
    const object = byAddress.get(address) ?? { address, type: '?' };
    const last = k === result.path.length - 1;
    const style = last ? 'color=blue, fontcolor=blue, ' : '';
    lines.push(`${dotString(address)} [${style}label=${dotString(briefLabel(object))}];`);
  });
  if (result.path.length > 0) lines.push(`${rootNode} -> ${dotString(result.path[0])};`);
  for (let k = 0; k + 1 < result.path.length; k++) lines.push(`${dotString(result.path[k])} -> ${dotString(result.path[k + 1])};`);
  lines.push('}');
  return lines.join('\n');
}

export interface GraphView {
  kind: 'retainer' | 'path';
  title: string;
  heap: string;
  heapLabel: string;
  /** One-line answer shown above the graph. */
  headline: string;
  details: string[];
  svg: string;
}

export function retainerHeadline(result: RootResult, sampleCount: number): { headline: string; details: string[] } {
  const details: string[] = [];
  let headline: string;
  if (result.retainer) {
    const retainer = result.retainerObject ?? result.nodes.find((n) => n.address === result.retainer);
    const what = retainer ? retainer.name ?? retainer.key ?? retainer.class ?? retainer.type : 'object';
    const site = retainer?.file ? ` allocated at ${retainer.file}:${retainer.line ?? 0}` : '';
    headline = `Retainer: ${result.retainer} ${what}${site}, ${result.distance} hop${result.distance === 1 ? '' : 's'} from ${sampleCount} samples`;
  } else {
    headline = `No common retainer found for ${sampleCount} samples`;
  }
  // Samples held by different containers (issue 12): the retainer above is then not what holds each of them.
  if (result.split && result.groups?.length) {
    details.push(`the samples are split: ${result.groups.length} containers hold them`);
    for (const group of result.groups) {
      const r = group.retainer;
      details.push(`${r ? `${r.address} ${r.name ?? r.key ?? r.class ?? r.type}` : 'a GC root'} holds ${group.samples.length} of them`);
    }
  }
  if (result.rootPath) details.push(`held from GC root "${result.rootPath.root}" through ${result.rootPath.path.length} objects`);
  if (result.unknown?.length) details.push(`${result.unknown.length} addresses not in this heap: ${result.unknown.slice(0, 5).join(', ')}`);
  if (result.budgetExhausted) details.push('search budget exhausted: the answer may be partial');
  return { headline, details };
}

/**
 * The webview document. `cspSource` is webview.cspSource; the one script is
 * inline with the nonce, posts {type:'inspect', address} when a node is
 * clicked, and toggles fit-to-width.
 */
/**
 * The start of every Heapleak webview page: the strict Content-Security-Policy
 * (nothing remote; scripts and styles only with the page's nonce), the title,
 * and the opening of the nonce'd style with the layout the pages share. The
 * caller adds its own rules, closes the style and writes the body.
 */
export function webviewHead(title: string, nonce: string, cspSource: string): string {
  const csp = [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">
  html, body { height: 100%; margin: 0; }
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); background: var(--vscode-editor-background);
         padding: 0 12px; box-sizing: border-box; display: flex; flex-direction: column; }
  header { flex: none; padding: 8px 0; border-bottom: 1px solid var(--vscode-panel-border); }
  h1 { font-size: 1.1em; margin: 0 0 4px 0; }
`;
}

export function buildGraphHtml(view: GraphView, nonce: string, cspSource: string): string {
  const details = view.details.map((d) => `<li>${escapeHtml(d)}</li>`).join('');
  return `${webviewHead(view.title, nonce, cspSource)}  header p, header ul { margin: 2px 0; font-size: 0.9em; opacity: 0.85; }
  button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 2px 8px; cursor: pointer; }
  #graph { flex: 1; min-height: 0; overflow: auto; padding: 8px 0; }
  /* fit: the whole graph in the panel (the svg's viewBox keeps its aspect); else its natural size, scrolled */
  #graph.fit svg { width: 100%; height: 100%; }
  #graph svg { background: #ffffff; border-radius: 4px; }
  #graph g.node { cursor: pointer; }
  #graph g.node:hover polygon, #graph g.node:hover ellipse { stroke-width: 3; }
  .hint { font-size: 0.85em; opacity: 0.7; }
</style>
</head>
<body data-heap="${escapeHtml(view.heap)}" data-kind="${view.kind}">
<header>
  <h1 id="headline">${escapeHtml(view.headline)}</h1>
  <p>Heap ${escapeHtml(view.heapLabel)} · <span class="hint">blue: samples, red: retainer, grey dashed: path from a GC root. Click a node to inspect it.</span>
  <button id="fit" type="button">Actual size</button></p>
  ${details ? `<ul>${details}</ul>` : ''}
</header>
<div id="graph" class="fit">${view.svg}</div>
<script nonce="${nonce}">
(function () {
  const vscode = acquireVsCodeApi();
  const graph = document.getElementById('graph');
  graph.addEventListener('click', (event) => {
    const node = event.target.closest && event.target.closest('g.node');
    if (!node) return;
    const title = node.querySelector('title');
    const address = title ? title.textContent.trim() : '';
    if (/^0x[0-9a-fA-F]+$/.test(address)) vscode.postMessage({ type: 'inspect', address });
  });
  // Graphviz sized the boxes with its own font metrics; squeeze labels the
  // webview's monospace font draws wider than their box.
  for (const node of graph.querySelectorAll('g.node')) {
    const shape = node.querySelector('polygon, ellipse');
    if (!shape) continue;
    const width = shape.getBBox().width - 6;
    for (const text of node.querySelectorAll('text')) {
      if (text.getComputedTextLength() > width) {
        text.setAttribute('textLength', String(width));
        text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
      }
    }
  }
  const fit = document.getElementById('fit');
  fit.addEventListener('click', () => {
    graph.classList.toggle('fit');
    fit.textContent = graph.classList.contains('fit') ? 'Actual size' : 'Fit to panel';
  });
})();
</script>
</body>
</html>`;
}
