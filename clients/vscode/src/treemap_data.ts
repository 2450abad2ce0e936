// The dominator treemap's data, shared by the extension host (which shapes
// `dominatorTree` answers, marks the leak rows and grafts deeper levels in)
// and the webview page (treemap_layout.ts lays it out). Pure: no Node, no DOM,
// no vscode, no d3 (so the host never loads the ESM-only d3-hierarchy).

import type { DominatorNode } from './protocol';

/** How a cell relates to the leak rows: one of their objects, or on a root path to a holder. */
export type LeakMark = 'leak' | 'path';

export interface TreemapDatum {
  /** The address, `ROOT`, or `<parent>/rest` for what a node keeps itself and its small children. */
  id: string;
  address?: string;
  name: string;
  /** Colours the cell: the class key (`User`, `HASH`, `CLASS:Foo`). */
  key: string;
  retained: number;
  self: number;
  kind: 'root' | 'object' | 'rest';
  /** It dominates more than itself but its children were not fetched yet: zooming asks the daemon. */
  lazy: boolean;
  leak?: LeakMark;
  /** Children not listed (limit, minBytes), folded into the `rest` cell. */
  otherCount?: number;
  childCount?: number;
  children?: TreemapDatum[];
}

/**
 * A `dominatorTree` node as treemap data. A node's children are its listed
 * children plus one `rest` cell for the bytes they do not cover (its own
 * memsize and the children folded into `other`), so every cell's area is
 * its retained size.
 */
export function shapeTreemap(node: DominatorNode, marks: ReadonlyMap<string, LeakMark> = new Map()): TreemapDatum {
  const isRoot = node.address === 'ROOT';
  const id = node.address;
  const self = node.memsize ?? 0;
  const datum: TreemapDatum = {
    id,
    address: isRoot ? undefined : node.address,
    name: isRoot ? 'GC roots' : (node.name || node.key || node.class || node.type),
    key: node.key ?? node.type,
    retained: node.retained,
    self,
    kind: isRoot ? 'root' : 'object',
    lazy: !node.children && node.retained > self,
    leak: marks.get(node.address),
    otherCount: node.other?.count,
    childCount: node.childCount,
  };
  if (node.children && node.children.length > 0) {
    datum.children = node.children.map((child) => shapeTreemap(child, marks));
    const covered = datum.children.reduce((sum, c) => sum + c.retained, 0);
    const rest = node.retained - covered;
    if (rest > 0) {
      const others = node.other?.count ?? 0;
      datum.children.push({
        id: `${id}/rest`,
        address: datum.address,
        name: others > 0 ? `${others} smaller` : 'itself',
        key: datum.key,
        retained: rest,
        self: 0,
        kind: 'rest',
        lazy: false,
      });
    }
  }
  return datum;
}

/** The datum of `id` in the tree, and its ancestors from the top (for the breadcrumb). */
export function findDatum(top: TreemapDatum, id: string): { datum: TreemapDatum; trail: TreemapDatum[] } | undefined {
  const stack: { datum: TreemapDatum; trail: TreemapDatum[] }[] = [{ datum: top, trail: [] }];
  while (stack.length > 0) {
    const { datum, trail } = stack.pop()!;
    if (datum.id === id) return { datum, trail };
    for (const child of datum.children ?? []) stack.push({ datum: child, trail: [...trail, datum] });
  }
  return undefined;
}

/** Puts a deeper answer (`dominatorTree` from `sub.id`) in place of the lazy node of that id; false when absent. */
export function graftSubtree(top: TreemapDatum, sub: TreemapDatum): boolean {
  const found = findDatum(top, sub.id);
  if (!found || found.datum.kind === 'rest') return false;
  const target = found.datum;
  target.children = sub.children;
  target.lazy = false;
  target.childCount = sub.childCount;
  target.otherCount = sub.otherCount;
  return true;
}

/** A stable colour per class key (the same class, the same colour in every view). */
export function classColor(key: string): string {
  let hash = 2166136261;
  for (let k = 0; k < key.length; k++) {
    hash ^= key.charCodeAt(k);
    hash = Math.imul(hash, 16777619);
  }
  const hue = (hash >>> 0) % 360;
  return `hsl(${hue}, 42%, 58%)`;
}

/** Addresses of the leak rows: holders, owners and samples are `leak`, the holders' root paths `path`. */
export function leakMarks(rows: { holder?: { address: string } | null; owners?: { address: string }[]; samples?: string[]; path?: string[] }[]): Map<string, LeakMark> {
  const marks = new Map<string, LeakMark>();
  for (const row of rows) for (const address of row.path ?? []) marks.set(address, 'path');
  for (const row of rows) {
    if (row.holder) marks.set(row.holder.address, 'leak');
    for (const owner of row.owners ?? []) marks.set(owner.address, 'leak');
    for (const sample of row.samples ?? []) marks.set(sample, 'leak');
  }
  return marks;
}
