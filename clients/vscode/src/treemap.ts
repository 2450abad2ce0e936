// The dominator treemap: which heap to draw, the first `dominatorTree` answer
// shaped with the leak rows marked, deeper levels fetched when the page zooms
// into a node it has no children for, and the webview document under the
// graph view's strict CSP (one nonce; the page script is the bundled
// media/dist/treemap.js, d3-hierarchy included). No vscode import: the
// panel is extension.ts's business.

import type { CancellationToken } from 'vscode-jsonrpc';
import { HeapStore } from './model';
import { DominatorTreeParams, DominatorTreeResult, formatBytes, formatCount } from './protocol';
import { escapeHtml, webviewHead } from './graph';
import { LeakMark, TreemapDatum, leakMarks, shapeTreemap } from './treemap_data';

export interface DominatorSource {
  dominatorTree(params: DominatorTreeParams, token?: CancellationToken): Promise<DominatorTreeResult>;
}

/** What the page draws first. */
export interface TreemapView {
  heap: string;
  heapLabel: string;
  title: string;
  headline: string;
  data: TreemapDatum;
}

/** Levels asked per request: the page draws two, and a third saves a round trip on the first zoom. */
export const kTreemapDepth = 3;

export class TreemapModel {
  constructor(
    private readonly store_: HeapStore,
    private readonly source_: DominatorSource,
    private readonly limit_: () => number,
  ) {}

  /** The leak rows of the diff whose target is `heap`, as marks on their objects. */
  marks(heap: string): Map<string, LeakMark> {
    const explain = this.store_.diffFor(heap)?.explain;
    return explain ? leakMarks(explain.leaks) : new Map();
  }

  /** The super-root's subtree of `heap`, shaped for the page. */
  async view(heap: string, token?: CancellationToken): Promise<TreemapView> {
    const result = await this.source_.dominatorTree({ heap, depth: kTreemapDepth, limit: this.limit_() }, token);
    const data = shapeTreemap(result.root, this.marks(heap));
    const marked = this.marks(heap).size > 0;
    return {
      heap,
      heapLabel: this.store_.label(heap),
      title: `Treemap of ${this.store_.heap(heap)?.name ?? heap}`,
      headline:
        `${formatBytes(result.root.retained)} reachable in ${formatCount(result.reachable)} objects` +
        (result.unreachable.count > 0 ? ` (${formatBytes(result.unreachable.memsize)} in ${formatCount(result.unreachable.count)} unreachable, not drawn)` : '') +
        (marked ? '; leak rows outlined in red' : ''),
      data,
    };
  }

  /** The subtree below `address` (the page zoomed into a node whose children it does not have). */
  async expand(heap: string, address: string, token?: CancellationToken): Promise<TreemapDatum> {
    const result = await this.source_.dominatorTree({ heap, root: address, depth: kTreemapDepth, limit: this.limit_() }, token);
    return shapeTreemap(result.root, this.marks(heap));
  }
}

/**
 * The page: the same CSP as the graph view (nothing remote, scripts only with
 * the nonce), the data as inert JSON the script reads, the script from the
 * extension's media (`scriptUri`, a webview URI).
 */
export function buildTreemapHtml(view: TreemapView, nonce: string, cspSource: string, scriptUri: string): string {
  // Inert JSON: `<` escaped so no string in it can close the script element.
  const data = JSON.stringify(view.data).replace(/</g, '\\u003c');
  return `${webviewHead(view.title, nonce, cspSource)}  header p { margin: 2px 0; font-size: 0.9em; opacity: 0.85; }
  #trail button { background: none; border: none; color: var(--vscode-textLink-foreground); cursor: pointer; padding: 0 2px; font: inherit; }
  #trail button:disabled { color: var(--vscode-foreground); cursor: default; }
  #inspect { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 2px 8px; cursor: pointer; }
  #map { flex: 1; min-height: 0; padding: 8px 0; }
  #treemap { width: 100%; height: 100%; display: block; }
  g.cell rect { stroke: var(--vscode-editor-background); stroke-width: 1; }
  g.cell.zoomable { cursor: zoom-in; }
  g.cell.leaf { cursor: pointer; }
  g.cell.rest rect { fill-opacity: 0.45; }
  g.cell.leak > rect { stroke: #e51400; stroke-width: 3; }
  g.cell.path > rect { stroke: #f0a30a; stroke-width: 2; stroke-dasharray: 4 2; }
  g.cell:hover > rect { filter: brightness(1.15); }
  g.cell text { font-size: 11px; fill: #111; pointer-events: none; }
  g.cell text.size { opacity: 0.75; }
  .hint { font-size: 0.85em; opacity: 0.7; }
</style>
</head>
<body data-heap="${escapeHtml(view.heap)}">
<header>
  <h1 id="headline">${escapeHtml(view.headline)}</h1>
  <p>Heap ${escapeHtml(view.heapLabel)} · <span id="trail"></span> <button id="inspect" type="button" hidden>Inspect</button></p>
  <p class="hint">Area: bytes retained (what freeing the object frees). Colour: class. Click a cell to zoom in; a cell without more inside opens the object; the path above zooms out.</p>
</header>
<div id="map"><svg id="treemap" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="dominator treemap"></svg></div>
<script type="application/json" id="treemap-data">${data}</script>
<script nonce="${nonce}" src="${escapeHtml(scriptUri)}"></script>
</body>
</html>`;
}
