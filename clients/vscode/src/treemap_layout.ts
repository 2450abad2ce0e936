// The dominator treemap's layout: the zoomed node's children (two levels) as
// squarified cells by retained bytes, with d3-hierarchy. Used by the webview
// page (bundled into media/dist/treemap.js) and the unit tests; the extension
// host does not load it. Pure: no Node, no DOM, no vscode.

import { hierarchy, treemap, treemapSquarify } from 'd3-hierarchy';
import type { TreemapDatum } from './treemap_data';

/** A laid-out cell, in the coordinates of the zoomed view. */
export interface TreemapCell {
  id: string;
  address?: string;
  name: string;
  key: string;
  retained: number;
  kind: TreemapDatum['kind'];
  lazy: boolean;
  leak?: TreemapDatum['leak'];
  /** 1 for the zoomed node's children, 2 for theirs. */
  depth: number;
  /** Can be zoomed into: it has children or can fetch them. */
  zoomable: boolean;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Lays out `node`'s children (and, inside them, theirs: `levels` deep) in a
 * width x height box by retained bytes, squarified, with a title strip on
 * cells that hold children. Cells smaller than a pixel are dropped.
 */
export function layoutTreemap(node: TreemapDatum, width: number, height: number, levels = 2): TreemapCell[] {
  const root = hierarchy<TreemapDatum>(node, (d) => d.children)
    .sum((d) => (d.children && d.children.length > 0 ? 0 : d.retained))
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0));
  treemap<TreemapDatum>()
    .tile(treemapSquarify)
    .size([width, height])
    .paddingInner(2)
    .paddingTop((d) => (d.depth === 0 ? 0 : 16))
    .paddingRight((d) => (d.depth === 0 ? 0 : 2))
    .paddingBottom((d) => (d.depth === 0 ? 0 : 2))
    .paddingLeft((d) => (d.depth === 0 ? 0 : 2))
    .round(true)(root);
  const cells: TreemapCell[] = [];
  for (const n of root.descendants()) {
    const laid = n as typeof n & { x0: number; y0: number; x1: number; y1: number };
    if (n.depth === 0 || n.depth > levels) continue;
    if (laid.x1 - laid.x0 < 1 || laid.y1 - laid.y0 < 1) continue;
    const d = n.data;
    cells.push({
      id: d.id,
      address: d.address,
      name: d.name,
      key: d.key,
      retained: d.retained,
      kind: d.kind,
      lazy: d.lazy,
      leak: d.leak,
      depth: n.depth,
      zoomable: d.kind !== 'rest' && (d.lazy || (d.children?.length ?? 0) > 0),
      x0: laid.x0,
      y0: laid.y0,
      x1: laid.x1,
      y1: laid.y1,
    });
  }
  return cells;
}
