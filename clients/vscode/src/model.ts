// The extension's state and the Heaps tree built from it: loaded heaps ->
// one row per leak (holder, path, objects by class -> allocation sites,
// samples; `explain` from issue 12 on) or, from older daemons, leak groups ->
// sample objects -> referrers, fetched lazily page by page. Pure: it
// describes tree items as plain data and fetches through narrow interfaces,
// so it runs without VS Code.

import { isMemory, memoryLine, rssRecorded } from './memory';
import {
  ExplainResult,
  HeapSummary,
  LeakGroup,
  LeakObjects,
  LeakRow,
  ObjectBrief,
  RelatedResult,
  StatsResult,
  formatBytes,
  formatCount,
  growthPerDump,
} from './protocol';

export interface LeakDiff {
  baseline: string;
  target: string;
  later?: string;
  groupBy: string;
  /** The groups: `stats`' answer, or one group per leak row when `explain` answered. */
  result: StatsResult;
  /** `explain`'s one-row-per-leak answer; absent when the daemon only has the per-class shape. */
  explain?: ExplainResult;
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

export type TreeNode = HeapNode | GroupNode | ObjectNode | MoreNode | InfoNode | LeakNode | SectionNode | ClassNode | SiteNode;

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
  role: 'sample' | 'referrer' | 'holder' | 'path';
}

/** One row of `explain`: a leak, or (noise) what is probably not one. */
export interface LeakNode {
  kind: 'leak';
  id: string;
  heap: string;
  row: LeakRow;
  noise: boolean;
}

/** A leak's parts (its path, its objects by class, its samples) and the noise rows. */
export interface SectionNode {
  kind: 'section';
  id: string;
  heap: string;
  section: 'path' | 'objects' | 'samples' | 'noise';
  rows: LeakRow[];
}

/** The leaked objects of one class under a leak, expanding to their allocation sites. */
export interface ClassNode {
  kind: 'class';
  id: string;
  heap: string;
  objects: LeakObjects;
}

/** An allocation site; `resolved` is the workspace file it names, when there is one. */
export interface SiteNode {
  kind: 'site';
  id: string;
  site: string;
  file: string;
  line: number;
  count: number;
  resolved?: string;
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

/** Maps an allocation site's file to a workspace file, or undefined when the workspace has none. */
export type SiteResolver = (file: string) => Promise<string | undefined>;

export const kReferrerPage = 50;

/** `app.rb:12` -> {file: 'app.rb', line: 12}; a site without a line opens at line 1. */
export function parseSite(site: string): { file: string; line: number } {
  const match = /^(.*):(\d+)$/.exec(site);
  return match && match[1] ? { file: match[1], line: Number(match[2]) } : { file: site, line: 1 };
}

export class TreeModel {
  constructor(
    private readonly store_: HeapStore,
    private readonly source_: RelatedSource,
    private readonly pageSize_ = kReferrerPage,
    private readonly sites_: SiteResolver = async () => undefined,
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
      case 'site':
        return [];
      case 'leak':
        return this.leakChildren(node);
      case 'section':
        return this.sectionChildren(node);
      case 'class':
        return this.siteChildren(node);
    }
  }

  /** The tree's node of a leak row of `heap`'s diff (what a CodeLens reveals), with the id the tree gives it. */
  async findLeak(heap: string, leak: string): Promise<LeakNode | undefined> {
    const heapNode = (await this.children()).find((n) => n.kind === 'heap' && n.heap === heap);
    if (!heapNode) return undefined;
    const kids = await this.children(heapNode);
    return kids.find((n): n is LeakNode => n.kind === 'leak' && (n.row.signature ?? n.row.key) === leak);
  }

  /** The parent of the nodes `findLeak` gives (VS Code's reveal walks up from them); undefined for the rest. */
  async parent(node: TreeNode): Promise<TreeNode | undefined> {
    if (node.kind !== 'leak' || node.noise) return undefined;
    return (await this.children()).find((n) => n.kind === 'heap' && n.heap === node.heap);
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
    if (diff.explain) {
      const explain = diff.explain;
      const leaks: TreeNode[] = explain.leaks.map((row, k) => ({
        kind: 'leak',
        id: `${node.id}/leak${k}:${row.signature ?? row.key}`,
        heap: node.heap,
        row,
        noise: false,
      }));
      const noise = explain.noise ?? [];
      if (noise.length > 0) leaks.push({ kind: 'section', id: `${node.id}/noise`, heap: node.heap, section: 'noise', rows: noise });
      if (explain.leaks.length === 0)
        leaks.unshift({
          kind: 'info',
          id: `${node.id}/noleak`,
          label: 'No leak found',
          tooltip: 'Nothing new in the target is still held in the later heap, or all of it is probably not a leak (below).',
        });
      // Where the memory went, first: the question before which object leaks.
      // Without RSS (no capture manifests) it can only say what is missing:
      // last, as in the CLIs' text, so the first line is the leaks'.
      if (!isMemory(explain.memory)) return [summary, ...leaks];
      const memory: TreeNode = { kind: 'info', id: `${node.id}/memory`, ...memoryLine(explain.memory) };
      return rssRecorded(explain.memory) ? [memory, summary, ...leaks] : [summary, ...leaks, memory];
    }
    const groups: TreeNode[] = diff.result.groups.map((group) => ({
      kind: 'group',
      id: `${node.id}/group:${group.key}`,
      heap: node.heap,
      group,
    }));
    return [summary, ...groups];
  }

  private leakChildren(node: LeakNode): TreeNode[] {
    const row = node.row;
    const kids: TreeNode[] = [];
    if (node.noise && row.why)
      kids.push({ kind: 'info', id: `${node.id}/why`, label: `Why: ${row.why}`, tooltip: row.reason ? `reason: ${row.reason}` : undefined });
    if (row.holder) {
      kids.push({
        kind: 'object',
        id: `${node.id}/holder:${row.holder.address}`,
        heap: node.heap,
        address: row.holder.address,
        brief: row.holder,
        role: 'holder',
      });
    } else {
      kids.push({
        kind: 'info',
        id: `${node.id}/noholder`,
        label: `No holder: the objects hang directly off GC root${row.root ? ` "${row.root}"` : 's'}`,
      });
    }
    if ((row.pathNames?.length ?? 0) > 0 || (row.path?.length ?? 0) > 0)
      kids.push({ kind: 'section', id: `${node.id}/path`, heap: node.heap, section: 'path', rows: [row] });
    if ((row.objects?.length ?? 0) > 0) kids.push({ kind: 'section', id: `${node.id}/objects`, heap: node.heap, section: 'objects', rows: [row] });
    if (row.samples.length > 0) kids.push({ kind: 'section', id: `${node.id}/samples`, heap: node.heap, section: 'samples', rows: [row] });
    return kids;
  }

  private sectionChildren(node: SectionNode): TreeNode[] {
    const row = node.rows[0];
    switch (node.section) {
      case 'noise':
        return node.rows.map((r, k) => ({ kind: 'leak', id: `${node.id}/${k}:${r.signature ?? r.key}`, heap: node.heap, row: r, noise: true }));
      case 'path': {
        // pathNames has the GC root first, then one name per address of `path`.
        const names = row.pathNames ?? [];
        const path = row.path ?? [];
        const offset = names.length === path.length + 1 ? 1 : 0;
        const steps: TreeNode[] = [];
        if (offset === 1) steps.push({ kind: 'info', id: `${node.id}/root`, label: names[0], tooltip: 'the GC root' });
        else if (row.root) steps.push({ kind: 'info', id: `${node.id}/root`, label: `ROOT ${row.root}`, tooltip: 'the GC root' });
        path.forEach((address, k) => {
          const name = names[k + offset];
          steps.push({
            kind: 'object',
            id: `${node.id}/${k}:${address}`,
            heap: node.heap,
            address,
            brief: name ? { address, type: '', name } : undefined,
            role: 'path',
          });
        });
        return steps;
      }
      case 'objects':
        return (row.objects ?? []).map((objects, k) => ({ kind: 'class', id: `${node.id}/${k}:${objects.key}`, heap: node.heap, objects }));
      case 'samples': {
        const only = row.objects?.length === 1 ? row.objects[0] : undefined;
        return row.samples.map((address) => ({
          kind: 'object',
          id: `${node.id}/${address}`,
          heap: node.heap,
          address,
          groupKey: only ? (only.name ?? only.key) : undefined,
          role: 'sample',
        }));
      }
    }
  }

  private async siteChildren(node: ClassNode): Promise<TreeNode[]> {
    return Promise.all(
      (node.objects.sites ?? []).map(async ({ site, count }, k) => {
        const { file, line } = parseSite(site);
        const resolved = await this.sites_(file).catch(() => undefined);
        return { kind: 'site', id: `${node.id}/${k}:${site}`, site, file, line, count, resolved } satisfies SiteNode;
      }),
    );
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
          description: `${objectsText(node.group.count)}, ${formatBytes(node.group.memsize)}`,
          tooltip: `${node.group.key}: ${formatCount(node.group.count)} leaked objects, ${formatCount(node.group.memsize)} bytes; ${node.group.samples.length} samples below`,
          collapsible: 'collapsed',
          contextValue: 'group',
          icon: 'symbol-class',
        };
      case 'object': {
        const brief = node.brief;
        const what = brief ? objectWhat(brief) : (node.groupKey ?? '');
        const site = brief?.file ? `${brief.file}:${brief.line ?? 0}` : undefined;
        const bytes = brief?.memsize !== undefined ? formatBytes(brief.memsize) : undefined;
        const labels = {
          sample: { label: node.address, description: [what, bytes], icon: 'symbol-object', tip: 'sample leaked object' },
          referrer: { label: node.address, description: [what, bytes], icon: 'arrow-small-left', tip: 'refers to the parent object' },
          // The holder reads as a class, then the address; path steps as the names Ruby code uses.
          holder: {
            label: `Holder: ${what || node.address}`,
            description: [node.address, bytes],
            icon: 'package',
            tip: 'the object whose references gained the leaked objects',
          },
          path: {
            label: what || node.address,
            description: [what ? node.address : undefined],
            icon: 'arrow-small-right',
            tip: 'on the path from the GC root to the holder',
          },
        }[node.role];
        return {
          id: node.id,
          label: labels.label,
          description: labels.description.filter(Boolean).join(' · '),
          tooltip: [what, node.address, site && `allocated at ${site}`, labels.tip].filter(Boolean).join('\n'),
          collapsible: 'collapsed',
          contextValue: site ? 'objectWithSite' : 'object',
          icon: labels.icon,
          command: { command: 'heapleak.inspectObject', title: 'Inspect Object', arguments: [node] },
        };
      }
      case 'leak':
        return leakItem(node);
      case 'section':
        return sectionItem(node);
      case 'class': {
        const o = node.objects;
        const sites = o.sites?.length ?? 0;
        return {
          id: node.id,
          label: o.name ?? o.key,
          description: `${objectsText(o.count)}, ${formatBytes(o.memsize)}`,
          tooltip:
            `${o.name ?? o.key}: ${formatCount(o.count)} leaked objects, ${formatCount(o.memsize)} bytes` +
            (sites ? `; ${sites} allocation site${sites === 1 ? '' : 's'} below` : '; no allocation sites (the dumps were not traced)'),
          collapsible: sites ? 'collapsed' : 'none',
          contextValue: 'class',
          icon: 'symbol-class',
        };
      }
      case 'site': {
        // The tree is narrow: file:line first, where it lives after.
        const dir = siteDir(node.file);
        return {
          id: node.id,
          label: `${baseName(node.file)}:${node.line}`,
          description: [objectsText(node.count), dir].filter(Boolean).join(' · '),
          tooltip: `${node.site}\n` + (node.resolved ? `Open ${node.resolved}:${node.line}` : `${node.file} was not found in this workspace`),
          collapsible: 'none',
          contextValue: node.resolved ? 'site' : 'siteNotFound',
          icon: node.resolved ? 'go-to-file' : 'question',
          command: node.resolved ? { command: 'heapleak.openSite', title: 'Open Allocation Site', arguments: [node] } : undefined,
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

/** How an object reads: the wire's Ruby-facing `name` when the daemon sends it, else its group key. */
export function objectWhat(brief: ObjectBrief): string {
  if (brief.name) return brief.name;
  if (brief.key) return brief.key;
  if (brief.class) return `${brief.class} (${brief.type})`;
  return brief.type;
}

/** `1 object`, `2,700 objects`. */
export function objectsText(count: number): string {
  return `${formatCount(count)} object${count === 1 ? '' : 's'}`;
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() || file;
}

function siteDir(file: string): string | undefined {
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return cut > 0 ? file.slice(0, cut) : undefined;
}

/** `+300/dump` from the holder's growth; undefined when unknown. */
export function growthText(row: LeakRow): string | undefined {
  const step = growthPerDump(row.growth);
  if (step === undefined) return undefined;
  return `${step < 0 ? '−' : '+'}${formatCount(Math.abs(step))}/dump`;
}

function leakItem(node: LeakNode): ItemView {
  const row = node.row;
  const retained = row.retained ?? row.memsize;
  const description = [objectsText(row.count), `${formatBytes(retained)} retained`, growthText(row)];
  const holder = row.holder ? `${objectWhat(row.holder)} ${row.holder.address}` : `none (GC root${row.root ? ` ${row.root}` : ''})`;
  const growth = row.growth
    ? `${row.growth.field} ${[row.growth.baseline, row.growth.target, row.growth.later].map((v) => (v === null || v === undefined ? '?' : formatCount(v))).join(' → ')}`
    : undefined;
  const tooltip = [
    row.key,
    `${formatCount(row.count)} objects, ${formatBytes(row.memsize)}; retains ${formatBytes(retained)}`,
    `holder: ${holder}`,
    row.reach && `reached through ${row.reach.kind} ${row.reach.name}${row.reach.root ? ` (GC root ${row.reach.root})` : ''}`,
    growth && `growth (baseline → target → later): ${growth}`,
    node.noise && row.why && `probably not a leak (${row.reason ?? '?'}): ${row.why}`,
    row.signature && `signature ${row.signature}`,
  ];
  return {
    id: node.id,
    label: row.key,
    description: (node.noise && row.why ? [...description, row.why] : description).filter(Boolean).join(' · '),
    tooltip: tooltip.filter(Boolean).join('\n'),
    collapsible: 'collapsed',
    contextValue: node.noise ? 'leakNoise' : 'leak',
    icon: node.noise ? 'circle-slash' : 'flame',
  };
}

function sectionItem(node: SectionNode): ItemView {
  const row = node.rows[0];
  const base = { id: node.id, collapsible: 'collapsed' as const, contextValue: `section:${node.section}` };
  switch (node.section) {
    case 'noise': {
      const bytes = node.rows.reduce((sum, r) => sum + (r.retained ?? r.memsize), 0);
      return {
        ...base,
        label: 'Probably not leaks',
        description: `${node.rows.length} row${node.rows.length === 1 ? '' : 's'}, ${formatBytes(bytes)}`,
        tooltip: 'New objects still alive in the later heap that are VM internals, finalizer tables, caches that do not grow...: each row says why.',
        icon: 'circle-slash',
      };
    }
    case 'path': {
      const reach = row.reach ? `${row.reach.kind} ${row.reach.name}` : undefined;
      const names = row.pathNames?.length ? row.pathNames : undefined;
      return {
        ...base,
        label: reach ? `Reached through ${reach}` : 'Path from a GC root',
        description: names?.join(' → ') ?? `${row.path?.length ?? 0} hops from GC root ${row.root ?? '?'}`,
        tooltip: names ? `How Ruby reaches the holder:\n${names.join('\n→ ')}` : undefined,
        icon: 'type-hierarchy',
      };
    }
    case 'objects': {
      const objects = row.objects ?? [];
      return {
        ...base,
        label: 'Objects by class',
        description: `${objects.length} class${objects.length === 1 ? '' : 'es'}`,
        tooltip: 'The leaked objects under this holder by class, biggest first; each expands to its allocation sites (traced dumps).',
        icon: 'symbol-class',
      };
    }
    case 'samples':
      return {
        ...base,
        label: 'Samples',
        description: `${formatCount(row.samples.length)} of ${formatCount(row.count)}`,
        tooltip: 'Leaked objects under this holder; expand one for its referrers.',
        icon: 'symbol-object',
      };
  }
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
