// The extension's state and the Heaps tree built from it: loaded heaps ->
// leak groups (count, bytes) -> sample objects -> referrers, fetched lazily
// page by page. Pure: it describes tree items as plain data and fetches
// through the narrow `RelatedSource` interface, so it runs without VS Code.

import { HeapSummary, LeakGroup, ObjectBrief, RelatedResult, StatsResult, formatBytes, formatCount } from './protocol';

export interface LeakDiff {
  baseline: string;
  target: string;
  later?: string;
  groupBy: string;
  result: StatsResult;
  /** Set by the store: bumps on every diff, so tree ids (and VS Code's expansion memory) change. */
  seq?: number;
}

export type Listener = () => void;

/** Loaded heaps (in load order) and the leak diffs whose target they are. */
export class HeapStore {
  private heaps_ = new Map<string, HeapSummary>();
  private diffs_ = new Map<string, LeakDiff>();
  private listeners_: Listener[] = [];
  private diffSeq_ = 0;

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners_.push(listener);
    return { dispose: () => (this.listeners_ = this.listeners_.filter((l) => l !== listener)) };
  }

  private changed(): void {
    for (const listener of this.listeners_) listener();
  }

  get heaps(): HeapSummary[] {
    return [...this.heaps_.values()];
  }

  heap(id: string): HeapSummary | undefined {
    return this.heaps_.get(id);
  }

  addHeap(summary: HeapSummary): void {
    this.heaps_.set(summary.heap, summary);
    this.changed();
  }

  removeHeap(id: string): void {
    this.heaps_.delete(id);
    // A diff that used the heap names addresses nobody can ask about any more.
    for (const [target, diff] of this.diffs_) {
      if (diff.baseline === id || diff.target === id || diff.later === id) this.diffs_.delete(target);
    }
    this.changed();
  }

  clear(): void {
    this.heaps_.clear();
    this.diffs_.clear();
    this.changed();
  }

  setDiff(diff: LeakDiff): void {
    this.diffs_.set(diff.target, { ...diff, seq: ++this.diffSeq_ });
    this.changed();
  }

  diffFor(target: string): LeakDiff | undefined {
    return this.diffs_.get(target);
  }

  get diffs(): LeakDiff[] {
    return [...this.diffs_.values()];
  }

  label(id: string): string {
    const heap = this.heaps_.get(id);
    return heap ? `${heap.name} (${id})` : id;
  }
}

export type TreeNode = HeapNode | GroupNode | ObjectNode | MoreNode | InfoNode;

export interface HeapNode {
  kind: 'heap';
  id: string;
  heap: string;
}

export interface GroupNode {
  kind: 'group';
  id: string;
  heap: string;
  group: LeakGroup;
}

export interface ObjectNode {
  kind: 'object';
  id: string;
  heap: string;
  address: string;
  /** What we know without asking: the group key for samples, the brief for referrers. */
  brief?: ObjectBrief;
  groupKey?: string;
  role: 'sample' | 'referrer';
}

export interface MoreNode {
  kind: 'more';
  id: string;
  heap: string;
  address: string;
  offset: number;
  remaining: number;
}

export interface InfoNode {
  kind: 'info';
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  error?: boolean;
}

/** The VS Code-free description of a tree row. */
export interface ItemView {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  contextValue?: string;
  icon?: string;
  command?: { command: string; title: string; arguments: unknown[] };
}

export interface RelatedSource {
  referrers(params: { heap: string; address: string; offset?: number; limit?: number }): Promise<RelatedResult>;
}

export const kReferrerPage = 50;

export class TreeModel {
  constructor(
    private readonly store_: HeapStore,
    private readonly source_: RelatedSource,
    private readonly pageSize_ = kReferrerPage,
  ) {}

  async children(node?: TreeNode): Promise<TreeNode[]> {
    if (!node) {
      // A new diff gives the heap a new id: VS Code would otherwise keep it collapsed as it was.
      return this.store_.heaps.map((h) => {
        const seq = this.store_.diffFor(h.heap)?.seq;
        return { kind: 'heap', id: seq ? `heap:${h.heap}#diff${seq}` : `heap:${h.heap}`, heap: h.heap };
      });
    }
    switch (node.kind) {
      case 'heap':
        return this.heapChildren(node);
      case 'group':
        return node.group.samples.map((address) => ({
          kind: 'object',
          id: `${node.id}/${address}`,
          heap: node.heap,
          address,
          groupKey: node.group.key,
          role: 'sample',
        }));
      case 'object':
        return this.referrerPage(node.id, node.heap, node.address, 0);
      case 'more':
        return this.referrerPage(node.id, node.heap, node.address, node.offset);
      case 'info':
        return [];
    }
  }

  private heapChildren(node: HeapNode): TreeNode[] {
    const diff = this.store_.diffFor(node.heap);
    if (!diff) {
      return [
        {
          kind: 'info',
          id: `${node.id}/nodiff`,
          label: 'No leak diff targets this heap',
          tooltip: 'Run "Heapleak: Run Leak Diff" with this heap as the target.',
        },
      ];
    }
    const total = diff.result.total;
    const summary: InfoNode = {
      kind: 'info',
      id: `${node.id}/summary`,
      label: `Leaked: ${formatCount(total.count)} objects, ${formatBytes(total.memsize)}`,
      description: [this.store_.label(diff.baseline), this.store_.label(diff.target), diff.later && this.store_.label(diff.later)]
        .filter(Boolean)
        .join(' → '),
      tooltip: [diff.result.rule && `rule: ${diff.result.rule}`, ...(diff.result.warnings ?? [])].filter(Boolean).join('\n'),
    };
    const groups: TreeNode[] = diff.result.groups.map((group) => ({
      kind: 'group',
      id: `${node.id}/group:${group.key}`,
      heap: node.heap,
      group,
    }));
    return [summary, ...groups];
  }

  private async referrerPage(parentId: string, heap: string, address: string, offset: number): Promise<TreeNode[]> {
    let page: RelatedResult;
    try {
      page = await this.source_.referrers({ heap, address, offset, limit: this.pageSize_ });
    } catch (error) {
      return [{ kind: 'info', id: `${parentId}/error`, label: `Referrers: ${errorText(error)}`, error: true }];
    }
    if (page.total === 0 && offset === 0) {
      return [{ kind: 'info', id: `${parentId}/none`, label: 'No referrers (held by a GC root only, or garbage)' }];
    }
    const nodes: TreeNode[] = page.items.map((item) => ({
      kind: 'object',
      id: `${parentId}/${item.address}`,
      heap,
      address: item.address,
      brief: item,
      role: 'referrer',
    }));
    const next = offset + page.items.length;
    if (next < page.total && page.items.length > 0) {
      nodes.push({ kind: 'more', id: `${parentId}/more@${next}`, heap, address, offset: next, remaining: page.total - next });
    }
    return nodes;
  }

  item(node: TreeNode): ItemView {
    switch (node.kind) {
      case 'heap': {
        const heap = this.store_.heap(node.heap);
        return {
          id: node.id,
          label: heap?.name ?? node.heap,
          description: heap ? `${node.heap} · ${formatCount(heap.objects)} objects · ${formatBytes(heap.residentBytes)}` : node.heap,
          tooltip: heap ? heapTooltip(heap) : undefined,
          collapsible: this.store_.diffFor(node.heap) ? 'expanded' : 'collapsed',
          contextValue: 'heap',
          icon: 'database',
        };
      }
      case 'group':
        return {
          id: node.id,
          label: node.group.key,
          description: `${formatCount(node.group.count)} objects, ${formatBytes(node.group.memsize)}`,
          tooltip: `${node.group.key}: ${formatCount(node.group.count)} leaked objects, ${formatCount(node.group.memsize)} bytes; ${node.group.samples.length} samples below`,
          collapsible: 'collapsed',
          contextValue: 'group',
          icon: 'symbol-class',
        };
      case 'object': {
        const brief = node.brief;
        const what = brief ? objectWhat(brief) : node.groupKey ?? '';
        const site = brief?.file ? `${brief.file}:${brief.line ?? 0}` : undefined;
        return {
          id: node.id,
          label: node.address,
          description: [what, brief?.memsize !== undefined ? formatBytes(brief.memsize) : undefined].filter(Boolean).join(' · '),
          tooltip: [what, site && `allocated at ${site}`, node.role === 'referrer' ? 'refers to the parent object' : 'sample leaked object']
            .filter(Boolean)
            .join('\n'),
          collapsible: 'collapsed',
          contextValue: site ? 'objectWithSite' : 'object',
          icon: node.role === 'sample' ? 'symbol-object' : 'arrow-small-left',
          command: { command: 'heapleak.inspectObject', title: 'Inspect Object', arguments: [node] },
        };
      }
      case 'more':
        return {
          id: node.id,
          label: `${formatCount(node.remaining)} more referrers…`,
          collapsible: 'collapsed',
          contextValue: 'more',
          icon: 'ellipsis',
        };
      case 'info':
        return {
          id: node.id,
          label: node.label,
          description: node.description,
          tooltip: node.tooltip,
          collapsible: 'none',
          contextValue: 'info',
          icon: node.error ? 'error' : 'info',
        };
    }
  }
}

export function objectWhat(brief: ObjectBrief): string {
  if (brief.key) return brief.key;
  if (brief.class) return `${brief.class} (${brief.type})`;
  return brief.type;
}

function heapTooltip(heap: HeapSummary): string {
  const lines = [
    heap.path,
    `${formatCount(heap.objects)} objects, resident ${formatBytes(heap.residentBytes)}, loaded in ${heap.loadSeconds.toFixed(2)} s`,
  ];
  if (heap.traced) lines.push('allocation tracing: on');
  if (heap.brokenLines) lines.push(`${formatCount(heap.brokenLines)} broken lines skipped`);
  if (heap.missingReferences) lines.push(`${formatCount(heap.missingReferences)} references to objects not in the dump`);
  return lines.join('\n');
}

function errorText(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) return String((error as Error).message);
  return String(error);
}
