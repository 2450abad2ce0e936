// The treemap page's script (runs in the webview, bundled with d3-hierarchy
// into media/dist/treemap.js by `npm run bundle`): draws the zoomed node's
// two levels as SVG cells, zooms on click, asks the extension for children it
// does not have ({type:'expand', address} -> {type:'subtree', data}), and
// asks it to inspect a cell with nothing more inside ({type:'inspect'}).
/* eslint-disable */

import { formatBytes as bytes } from '../src/protocol';
import { TreemapDatum, classColor, findDatum, graftSubtree } from '../src/treemap_data';
import { TreemapCell, layoutTreemap } from '../src/treemap_layout';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const vscode = acquireVsCodeApi();
const svgNs = 'http://www.w3.org/2000/svg';
const top: TreemapDatum = JSON.parse(document.getElementById('treemap-data')!.textContent || '{}');
const svg = document.getElementById('treemap') as unknown as SVGSVGElement;
const trailEl = document.getElementById('trail')!;
const inspectButton = document.getElementById('inspect') as HTMLButtonElement;
let current = top.id;
let pending: string | undefined;

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(svgNs, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function label(cell: TreemapCell, g: SVGGElement): void {
  const width = cell.x1 - cell.x0;
  const height = cell.y1 - cell.y0;
  if (width < 40 || height < 14) return;
  const name = el('text', { x: cell.x0 + 4, y: cell.y0 + 12, class: 'name' });
  const chars = Math.floor((width - 8) / 6.5);
  name.textContent = cell.name.length > chars ? `${cell.name.slice(0, Math.max(1, chars - 1))}…` : cell.name;
  g.appendChild(name);
  if (height >= 30 && !(cell.zoomable && cell.depth === 1 && height < 60)) {
    const size = el('text', { x: cell.x0 + 4, y: cell.y0 + 26, class: 'size' });
    size.textContent = bytes(cell.retained);
    g.appendChild(size);
  } else if (width >= 120) {
    name.textContent = `${name.textContent} · ${bytes(cell.retained)}`;
  }
}

function draw(): void {
  const found = findDatum(top, current) ?? { datum: top, trail: [] };
  const box = svg.getBoundingClientRect();
  const width = Math.max(200, Math.floor(box.width));
  const height = Math.max(150, Math.floor(box.height));
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.replaceChildren();
  const cells = layoutTreemap(found.datum, width, height, 2);
  for (const cell of cells) {
    const classes = ['cell', `depth${cell.depth}`, cell.kind, cell.zoomable ? 'zoomable' : 'leaf'];
    if (cell.leak) classes.push(cell.leak);
    const g = el('g', { class: classes.join(' '), 'data-id': cell.id, 'data-address': cell.address ?? '', 'data-name': cell.name });
    const rect = el('rect', { x: cell.x0, y: cell.y0, width: cell.x1 - cell.x0, height: cell.y1 - cell.y0, fill: classColor(cell.key) });
    const title = el('title', {});
    title.textContent = `${cell.name}${cell.address ? ` ${cell.address}` : ''}\n${bytes(cell.retained)} retained${cell.kind === 'rest' ? ' (the object itself and its smaller children)' : ''}${cell.leak === 'leak' ? '\nleak row object' : cell.leak === 'path' ? '\non the path to a leak holder' : ''}`;
    g.append(rect, title);
    label(cell, g);
    g.addEventListener('click', (event) => {
      event.stopPropagation();
      open(cell);
    });
    svg.appendChild(g);
  }
  trailEl.replaceChildren();
  for (const step of [...found.trail, found.datum]) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = `${step.name} (${bytes(step.retained)})`;
    button.disabled = step.id === found.datum.id;
    button.addEventListener('click', () => zoom(step.id));
    if (trailEl.childNodes.length) trailEl.append(' › ');
    trailEl.append(button);
  }
  inspectButton.hidden = !found.datum.address;
  document.body.dataset.zoom = found.datum.id;
  document.body.dataset.cells = String(cells.length);
}

function zoom(id: string): void {
  current = id;
  draw();
}

function open(cell: TreemapCell): void {
  // A click inside a child's box zooms into that child first, as the eye reads it.
  if (cell.depth === 2) {
    const parent = findDatum(top, cell.id)?.trail.at(-1);
    if (parent) return zoom(parent.id);
  }
  if (!cell.zoomable) {
    if (cell.address) vscode.postMessage({ type: 'inspect', address: cell.address });
    return;
  }
  const datum = findDatum(top, cell.id)?.datum;
  if (datum?.lazy && cell.address) {
    pending = cell.id;
    document.body.dataset.pending = cell.id;
    vscode.postMessage({ type: 'expand', address: cell.address });
    return;
  }
  zoom(cell.id);
}

inspectButton.addEventListener('click', () => {
  const datum = findDatum(top, current)?.datum;
  if (datum?.address) vscode.postMessage({ type: 'inspect', address: datum.address });
});

window.addEventListener('message', (event: MessageEvent) => {
  const message = event.data as { type?: string; data?: TreemapDatum; address?: string; error?: string };
  if (message?.type === 'subtree' && message.data) {
    graftSubtree(top, message.data);
    delete document.body.dataset.pending;
    if (pending === message.data.id) zoom(message.data.id);
    pending = undefined;
  } else if (message?.type === 'expandFailed') {
    delete document.body.dataset.pending;
    pending = undefined;
  }
});

window.addEventListener('resize', () => draw());
draw();
