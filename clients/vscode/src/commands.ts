// What each Heapleak command does, written against `Ui` (the few window
// services the commands use) and `DaemonApi` (the client's requests) instead
// of `vscode` itself, so a small stand-in can drive every command in unit
// tests. extension.ts maps these interfaces onto the real VS Code API.

import * as path from 'node:path';
import { CancellationToken, CancellationTokenSource } from 'vscode-jsonrpc';
import type { CrashInfo, ProgressSink } from './client';
import { bestSuffixMatch, objectDocument, pathDocument, resolveSite, siteOf } from './details';
import { GraphView, pathToDot, renderDot, retainerHeadline } from './graph';
import { GroupNode, HeapStore, LeakNode, ObjectNode, SiteNode, TreeNode } from './model';
import { PathMappings, SiteKind, mapSitePath, siteKind } from './sites';
import {
  ExplainParams,
  ExplainResult,
  GroupBy,
  HeapSummary,
  LoadHeapParams,
  ObjectResult,
  ProgressValue,
  RelatedParams,
  RelatedResult,
  RootParams,
  RootPathResult,
  RootResult,
  StatsParams,
  StatsResult,
  ErrorCodes,
  describeError,
  formatBytes,
  formatCount,
  isCancelled,
  isLeakRows,
  isMethodNotFound,
  withLists,
} from './protocol';

export interface DaemonApi {
  loadHeap(params: LoadHeapParams, onProgress?: ProgressSink, token?: CancellationToken): Promise<HeapSummary>;
  unloadHeap(heap: string): Promise<{ heap: string; unloaded: boolean }>;
  stats(params: StatsParams, token?: CancellationToken): Promise<StatsResult>;
  root(params: RootParams, token?: CancellationToken): Promise<RootResult>;
  pathToRoot(heap: string, address: string, token?: CancellationToken): Promise<RootPathResult>;
  object(heap: string, address: string): Promise<ObjectResult>;
  referrers(params: RelatedParams): Promise<RelatedResult>;
  owner(heap: string, addresses: string[], token?: CancellationToken): Promise<Record<string, unknown>>;
  explain(params: ExplainParams, token?: CancellationToken): Promise<Record<string, unknown>>;
  probe(method: string): Promise<boolean>;
}

export interface PickItem<T> {
  label: string;
  description?: string;
  detail?: string;
  value: T;
}

export interface ProgressReport {
  message?: string;
  increment?: number;
}

export interface Ui {
  pick<T>(items: PickItem<T>[], options: { title: string; placeHolder?: string }): Promise<T | undefined>;
  openFiles(options: { title: string }): Promise<string[] | undefined>;
  input(options: { title: string; prompt: string; placeHolder?: string; validate?: (value: string) => string | undefined }): Promise<string | undefined>;
  /** Messages resolve with the chosen action; callers must not await them inside a command's critical path. */
  info(message: string, ...actions: string[]): Promise<string | undefined>;
  warn(message: string, ...actions: string[]): Promise<string | undefined>;
  error(message: string, ...actions: string[]): Promise<string | undefined>;
  progress<R>(title: string, task: (report: (p: ProgressReport) => void, token: CancellationToken) => Promise<R>): Promise<R>;
  showGraph(view: GraphView): Promise<void>;
  showObject(heap: string, address: string, text: string): Promise<void>;
  showText(title: string, text: string, language: string): Promise<void>;
  openFile(file: string, line: number): Promise<void>;
  exists(file: string): boolean;
  workspaceFolders(): string[];
  /** Workspace files named `basename` (absolute paths), for the suffix match of allocation sites. */
  findFiles(basename: string): Promise<string[]>;
  setContext(key: string, value: unknown): Promise<void>;
  focusTree(): Promise<void>;
  openSettings(query: string): Promise<void>;
  log(line: string): void;
}

export interface Settings {
  maxNodes: number;
  /** Samples of a leak group sent to `root`: enough to find the retainer, few enough to read the graph. */
  retainerSamples: number;
  samples: number;
  minSamples: number;
  groupBy: GroupBy;
  /** `leaks`: explain's one row per leak when the daemon has it; `groups`: stats' groups, as before issue 12. */
  leakView?: 'leaks' | 'groups';
  /** `heapleak.pathMappings`: site path prefixes of the machine that dumped -> local prefixes. */
  pathMappings?: PathMappings;
}

/** Maps $/progress percentages onto VS Code's cumulative increments. */
export function progressAdapter(report: (p: ProgressReport) => void): (value: ProgressValue) => void {
  let last = 0;
  return (value) => {
    const pct = typeof value.percentage === 'number' ? Math.max(0, Math.min(100, value.percentage)) : undefined;
    const step: ProgressReport = {};
    if (value.message) step.message = value.message;
    if (pct !== undefined && pct > last) {
      step.increment = pct - last;
      last = pct;
    }
    if (value.kind === 'end' && last < 100) {
      step.increment = (step.increment ?? 0) + (100 - last);
      last = 100;
    }
    if (step.message !== undefined || step.increment !== undefined) report(step);
  };
}

export function uniqueName(file: string, taken: Iterable<string>): string {
  const names = new Set(taken);
  const base = path.basename(file);
  if (!names.has(base)) return base;
  for (let k = 2; ; k++) if (!names.has(`${base} (${k})`)) return `${base} (${k})`;
}

export class Commands {
  /** Optional methods the daemon answered -32601 for. */
  readonly missing = new Set<string>();

  constructor(
    private readonly ui_: Ui,
    private readonly daemon_: DaemonApi,
    readonly store: HeapStore,
    private readonly settings_: () => Settings,
  ) {}

  // ---- load / unload -------------------------------------------------------

  /** Loads each file in turn; returns the heaps that loaded. */
  async loadHeaps(paths?: string[]): Promise<HeapSummary[]> {
    let files = paths?.filter(Boolean);
    if (!files || files.length === 0) {
      files = await this.ui_.openFiles({ title: 'Heapleak: heap dumps to load (ObjectSpace.dump_all output)' });
      if (!files || files.length === 0) return [];
    }
    // Names are chosen up front, in order, so that repeats are told apart as before.
    const names: string[] = [];
    for (const file of files) names.push(uniqueName(file, [...this.store.heaps.map((h) => h.name), ...names]));
    // Every load is sent at once: heapleakd loads two at a time on its load
    // pool and admits each against --max-memory, so three dumps take about
    // as long as the two longest instead of all three in a row. Cancel on any
    // notification stops every load still running (as it stopped the load and
    // the files after it when they went one by one).
    const stopAll = new CancellationTokenSource();
    const outcomes = await Promise.allSettled(
      files.map((file, k) =>
        this.ui_.progress(`Heapleak: loading ${names[k]}`, (report, token) => {
          if (token.isCancellationRequested) stopAll.cancel();
          token.onCancellationRequested(() => stopAll.cancel());
          // A file whose turn comes after Cancel is not sent at all.
          if (stopAll.token.isCancellationRequested) {
            return Promise.reject({ code: ErrorCodes.requestCancelled, message: 'cancelled before it was sent' });
          }
          return this.daemon_.loadHeap({ path: file, name: names[k] }, progressAdapter(report), stopAll.token);
        }),
      ),
    );
    stopAll.dispose();
    // Reported and added to the tree in the order the files were given.
    const loaded: HeapSummary[] = [];
    const cancelled: string[] = [];
    outcomes.forEach((outcome, k) => {
      const name = names[k];
      if (outcome.status === 'fulfilled') {
        const summary = outcome.value;
        this.store.addHeap(summary);
        loaded.push(summary);
        this.ui_.log(`loaded ${summary.heap} ${summary.name}: ${summary.objects} objects in ${summary.loadSeconds} s`);
        if (summary.brokenLines) {
          void this.ui_.warn(`${name}: ${formatCount(summary.brokenLines)} broken lines were skipped (first: ${summary.firstBrokenLines?.[0]?.reason ?? '?'}).`);
        }
      } else if (isCancelled(outcome.reason)) {
        cancelled.push(name);
      } else {
        void this.ui_.error(`Heapleak: cannot load ${name}: ${describeError(outcome.reason)}`);
      }
    });
    if (cancelled.length > 0) void this.ui_.info(`Heapleak: loading ${cancelled.join(', ')} cancelled.`);
    if (loaded.length > 0) {
      await this.ui_.focusTree();
      const count = this.store.heaps.length;
      if (count >= 2 && this.store.diffs.length === 0) {
        void this.ui_
          .info(`Heapleak: ${count} heaps loaded. Run the leak diff next.`, 'Run Leak Diff')
          .then((action) => (action ? this.runLeakDiff() : undefined));
      }
    }
    return loaded;
  }

  async unloadHeap(node?: TreeNode): Promise<boolean> {
    let heap = node?.kind === 'heap' ? node.heap : undefined;
    heap ??= await this.pickHeap('Heapleak: heap to unload');
    if (!heap) return false;
    try {
      await this.daemon_.unloadHeap(heap);
    } catch (error) {
      void this.ui_.error(`Heapleak: cannot unload ${this.store.label(heap)}: ${describeError(error)}`);
      return false;
    }
    this.store.removeHeap(heap);
    return true;
  }

  // ---- leak diff -----------------------------------------------------------

  async runLeakDiff(): Promise<StatsResult | undefined> {
    const heaps = this.store.heaps;
    if (heaps.length < 2) {
      void this.ui_
        .error('Heapleak: load two heap dumps first (three for the 3-dump technique: before, during, after).', 'Load Heap Dump(s)')
        .then((action) => (action ? this.loadHeaps() : undefined));
      return undefined;
    }
    const item = (h: HeapSummary): PickItem<string> => ({
      label: h.name,
      description: `${h.heap} · ${formatCount(h.objects)} objects`,
      detail: h.path,
      value: h.heap,
    });
    const baseline = await this.ui_.pick(heaps.map(item), {
      title: 'Heapleak: leak diff (1/3): baseline, before the leak',
      placeHolder: 'Objects already here are not leaks',
    });
    if (!baseline) return undefined;
    const target = await this.ui_.pick(heaps.filter((h) => h.heap !== baseline).map(item), {
      title: 'Heapleak: leak diff (2/3): target, after the leak happened',
      placeHolder: 'New objects here are the suspects; the tree shows them under this heap',
    });
    if (!target) return undefined;
    const rest = heaps.filter((h) => h.heap !== baseline && h.heap !== target).map(item);
    const none: PickItem<string> = { label: '(none)', description: 'two-dump diff: more false positives', value: '' };
    const later = await this.ui_.pick([...rest, none], {
      title: 'Heapleak: leak diff (3/3): later, the leak still held',
      placeHolder: 'Suspects still alive here are reported',
    });
    if (later === undefined) return undefined;
    const settings = this.settings_();
    const explained =
      settings.leakView === 'groups'
        ? undefined
        : await this.leakRows({ baseline, target, later: later || undefined, groupBy: settings.groupBy, samples: settings.samples });
    if (explained === 'cancelled') return undefined;
    let result: StatsResult;
    if (explained) {
      // One group per leak row, so Find Common Retainer and Find Owner pick leaks as they picked groups.
      result = {
        groups: explained.leaks.map((row) => ({ key: row.key, count: row.count, memsize: row.memsize, samples: row.samples })),
        total: explained.total,
        rule: explained.rule,
        compacted: explained.compacted,
        warnings: explained.warnings,
        threeWay: Boolean(later),
      };
    } else {
      const params: StatsParams = { baseline, target, groupBy: settings.groupBy, samples: settings.samples };
      if (later) params.later = later;
      try {
        result = await this.ui_.progress('Heapleak: computing the leak diff', (_report, token) => this.daemon_.stats(params, token));
      } catch (error) {
        if (!isCancelled(error)) void this.ui_.error(`Heapleak: leak diff failed: ${describeError(error)}`);
        return undefined;
      }
    }
    this.store.setDiff({ baseline, target, later: later || undefined, groupBy: settings.groupBy, result, explain: explained });
    await this.ui_.focusTree();
    const top = result.groups[0];
    // Leak rows are ranked by retained bytes ("first"), groups by count ("most").
    const count = result.groups.length;
    const what = explained ? `${count} leak${count === 1 ? '' : 's'}` : `${count} groups`;
    const noise = explained?.noise?.length ? `; ${explained.noise.length} probably not leaks` : '';
    void this.ui_.info(
      `Heapleak: ${formatCount(result.total.count)} leaked objects (${formatBytes(result.total.memsize)}) in ${what}` +
        (top ? `; ${explained ? 'first' : 'most'}: ${top.key} ×${formatCount(top.count)}` : '') +
        noise +
        (result.warnings?.length ? `. ${result.warnings.join(' ')}` : ''),
    );
    return result;
  }

  /**
   * `explain`'s one-row-per-leak answer, or undefined when this daemon has no
   * `explain` or answers the older one row per class: the caller then falls
   * back to `stats` and the per-group tree.
   */
  private async leakRows(params: ExplainParams): Promise<ExplainResult | undefined | 'cancelled'> {
    if (this.missing.has('explain')) return undefined;
    try {
      const answer = await this.ui_.progress('Heapleak: finding the leaks', (_report, token) => this.daemon_.explain(params, token));
      if (isLeakRows(answer)) return withLists(answer);
      this.ui_.log('explain answers one row per class (a daemon before issue 12): showing the leak groups of stats');
      return undefined;
    } catch (error) {
      if (isCancelled(error)) return 'cancelled';
      if (isMethodNotFound(error)) {
        this.missing.add('explain');
        await this.ui_.setContext('heapleak.explainAvailable', false);
      } else {
        this.ui_.log(`explain failed, showing the leak groups of stats instead: ${describeError(error)}`);
      }
      return undefined;
    }
  }

  // ---- retainer, path, object --------------------------------------------

  /** The heap and addresses a selection names: groups give their samples. */
  private selectionAddresses(node?: TreeNode, nodes?: TreeNode[]): { heap: string; addresses: string[]; label: string } | { error: string } | undefined {
    const selected = (nodes && nodes.length > 0 ? nodes : node ? [node] : []).filter(
      (n): n is GroupNode | ObjectNode | LeakNode => n.kind === 'group' || n.kind === 'object' || n.kind === 'leak',
    );
    if (selected.length === 0) return undefined;
    const heaps = new Set(selected.map((n) => n.heap));
    if (heaps.size > 1) return { error: 'Select objects of one heap: addresses mean nothing across heaps.' };
    const addresses = new Set<string>();
    for (const n of selected) {
      if (n.kind === 'group') n.group.samples.forEach((a) => addresses.add(a));
      else if (n.kind === 'leak') n.row.samples.forEach((a) => addresses.add(a));
      else addresses.add(n.address);
    }
    const groupOnly = selected.every((n) => n.kind === 'group' || n.kind === 'leak');
    const only = selected.length === 1 ? selected[0] : undefined;
    const label = only?.kind === 'group' ? only.group.key : only?.kind === 'leak' ? only.row.key : `${addresses.size} objects`;
    // Objects the user picked one by one are all kept; a group gives a sample of its samples.
    const all = [...addresses];
    return { heap: selected[0].heap, addresses: groupOnly ? all.slice(0, this.settings_().retainerSamples) : all, label };
  }

  private async pickGroup(title: string): Promise<{ heap: string; addresses: string[]; label: string } | undefined> {
    const items: PickItem<{ heap: string; addresses: string[]; label: string }>[] = [];
    for (const diff of this.store.diffs) {
      for (const group of diff.result.groups) {
        items.push({
          label: group.key,
          description: `${formatCount(group.count)} objects, ${formatBytes(group.memsize)} · ${this.store.label(diff.target)}`,
          value: { heap: diff.target, addresses: group.samples.slice(0, this.settings_().retainerSamples), label: group.key },
        });
      }
    }
    if (items.length === 0) {
      void this.ui_.error('Heapleak: run the leak diff first, or select leaked objects in the Heaps tree.', 'Run Leak Diff').then((a) =>
        a ? this.runLeakDiff() : undefined,
      );
      return undefined;
    }
    return this.ui_.pick(items, { title, placeHolder: 'Leak group whose samples to explain' });
  }

  async findRetainer(node?: TreeNode, nodes?: TreeNode[]): Promise<RootResult | undefined> {
    let selection = this.selectionAddresses(node, nodes);
    if (selection && 'error' in selection) {
      void this.ui_.error(`Heapleak: ${selection.error}`);
      return undefined;
    }
    selection ??= await this.pickGroup('Heapleak: find the common retainer of');
    if (!selection) return undefined;
    const { heap, addresses, label } = selection;
    const settings = this.settings_();
    const params: RootParams = { heap, addresses, maxNodes: settings.maxNodes };
    if (settings.minSamples > 0) params.minSamples = settings.minSamples;
    let result: RootResult;
    try {
      result = await this.ui_.progress(`Heapleak: finding what holds ${label}`, (_r, token) => this.daemon_.root(params, token));
    } catch (error) {
      if (!isCancelled(error)) void this.ui_.error(`Heapleak: no retainer for ${label}: ${describeError(error)}`);
      return undefined;
    }
    const { headline, details } = retainerHeadline(result, addresses.length - (result.unknown?.length ?? 0));
    await this.showGraph('retainer', `Retainer of ${label}`, heap, headline, details, result.dot);
    if (!result.retainer) void this.ui_.warn(`Heapleak: ${headline}.`);
    return result;
  }

  private async showGraph(kind: GraphView['kind'], title: string, heap: string, headline: string, details: string[], dot: string): Promise<void> {
    let svg: string;
    try {
      svg = await renderDot(dot, this.settings_().maxNodes);
    } catch (error) {
      void this.ui_.error(`Heapleak: ${headline}. The graph is not drawn: ${describeError(error)}`, 'Open Settings').then((a) =>
        a ? this.ui_.openSettings('heapleak.graph.maxNodes') : undefined,
      );
      return;
    }
    await this.ui_.showGraph({ kind, title, heap, heapLabel: this.store.label(heap), headline, details, svg });
  }

  private async objectTarget(node: unknown, title: string): Promise<{ heap: string; address: string } | undefined> {
    const n = node as Partial<ObjectNode> | undefined;
    if (n && typeof n.heap === 'string' && typeof n.address === 'string') return { heap: n.heap, address: n.address };
    const heap = await this.pickHeap(title);
    if (!heap) return undefined;
    const address = await this.ui_.input({
      title,
      prompt: `Object address in ${this.store.label(heap)}`,
      placeHolder: '0x7f0123456789',
      validate: (value) => (/^0x[0-9a-fA-F]+$/.test(value.trim()) ? undefined : 'An address like 0x7f0123456789'),
    });
    return address ? { heap, address: address.trim() } : undefined;
  }

  async pathToRoot(node?: unknown): Promise<RootPathResult | undefined> {
    const target = await this.objectTarget(node, 'Heapleak: path to a GC root');
    if (!target) return undefined;
    let result: RootPathResult;
    try {
      result = await this.ui_.progress(`Heapleak: path from a GC root to ${target.address}`, (_r, token) =>
        this.daemon_.pathToRoot(target.heap, target.address, token),
      );
    } catch (error) {
      if (!isCancelled(error)) void this.ui_.error(`Heapleak: no path to a GC root for ${target.address}: ${describeError(error)}`);
      return undefined;
    }
    const headline = `Path from GC root "${result.root}" to ${target.address}: ${Math.max(0, result.path.length - 1)} hops`;
    this.ui_.log(pathDocument(this.store.label(target.heap), target.address, result));
    await this.showGraph('path', `Path to ${target.address}`, target.heap, headline, [], pathToDot(result));
    return result;
  }

  async inspectObject(node?: unknown): Promise<ObjectResult | undefined> {
    const target = await this.objectTarget(node, 'Heapleak: inspect object');
    if (!target) return undefined;
    let result: ObjectResult;
    try {
      result = await this.daemon_.object(target.heap, target.address);
    } catch (error) {
      void this.ui_.error(`Heapleak: cannot inspect ${target.address}: ${describeError(error)}`);
      return undefined;
    }
    await this.ui_.showObject(target.heap, target.address, objectDocument(this.store.label(target.heap), result));
    return result;
  }

  /** Opens the allocation site when the workspace has that file; returns the path opened. */
  async openAllocationSite(node?: unknown): Promise<string | undefined> {
    const n = node as Partial<ObjectNode> | undefined;
    let site: { file?: string; line?: number } | undefined = n?.brief;
    if (!site?.file) {
      const target = await this.objectTarget(node, 'Heapleak: open allocation site');
      if (!target) return undefined;
      try {
        site = await this.daemon_.object(target.heap, target.address);
      } catch (error) {
        void this.ui_.error(`Heapleak: ${describeError(error)}`);
        return undefined;
      }
    }
    if (!site?.file) {
      void this.ui_.warn('Heapleak: this object has no allocation site (the dump was taken without ObjectSpace.trace_object_allocations).');
      return undefined;
    }
    const file = await this.resolveSite(site.file);
    if (!file) {
      void this.ui_.warn(`Heapleak: ${siteOf(site)} is not in this workspace.`);
      return undefined;
    }
    await this.ui_.openFile(file, site.line ?? 1);
    return file;
  }

  /**
   * The workspace file an allocation site names: by `heapleak.pathMappings`
   * first, then as is, under a workspace folder, else by suffix.
   */
  async resolveSite(file: string): Promise<string | undefined> {
    const mapped = mapSitePath(file, this.settings_().pathMappings, this.ui_.workspaceFolders());
    if (mapped && this.ui_.exists(mapped)) return mapped;
    const direct = resolveSite(file, this.ui_.workspaceFolders(), (p) => this.ui_.exists(p));
    if (direct) return direct;
    const base = path.basename(file);
    if (!base || base.startsWith('<') || file === '(eval)') return undefined;
    return bestSuffixMatch(file, await this.ui_.findFiles(base));
  }

  /** Where a site is locally and whether it is the program's own code (squiggled) or a gem, the stdlib... */
  async locateSite(file: string): Promise<{ resolved?: string; kind: SiteKind }> {
    const resolved = await this.resolveSite(file);
    return { resolved, kind: siteKind(file, resolved, this.ui_.workspaceFolders()) };
  }

  /** A leak's allocation site row: opens the file at the line (the tree resolved it when it was shown). */
  async openSite(node?: unknown): Promise<string | undefined> {
    const n = node as Partial<SiteNode> | undefined;
    if (!n?.file) return undefined;
    const file = n.resolved ?? (await this.resolveSite(n.file));
    if (!file) {
      void this.ui_.warn(`Heapleak: ${n.site ?? n.file} is not in this workspace.`);
      return undefined;
    }
    await this.ui_.openFile(file, n.line ?? 1);
    return file;
  }

  // ---- optional analysis methods (issue 5) ---------------------------------

  async probeOptional(): Promise<void> {
    for (const [method, key] of [
      ['owner', 'heapleak.ownerAvailable'],
      ['explain', 'heapleak.explainAvailable'],
    ] as const) {
      const available = await this.daemon_.probe(method).catch(() => false);
      if (available) this.missing.delete(method);
      else this.missing.add(method);
      await this.ui_.setContext(key, available);
    }
  }

  private async optionalFailed(method: string, key: string, error: unknown): Promise<void> {
    if (isMethodNotFound(error)) {
      this.missing.add(method);
      await this.ui_.setContext(key, false);
      void this.ui_.info(`Heapleak: this heapleakd has no "${method}" request yet; the command is hidden until a daemon that has it starts.`);
      return;
    }
    if (!isCancelled(error)) void this.ui_.error(`Heapleak: ${method} failed: ${describeError(error)}`);
  }

  async owner(node?: TreeNode, nodes?: TreeNode[]): Promise<Record<string, unknown> | undefined> {
    let selection = this.selectionAddresses(node, nodes);
    if (selection && 'error' in selection) {
      void this.ui_.error(`Heapleak: ${selection.error}`);
      return undefined;
    }
    selection ??= await this.pickGroup('Heapleak: find the owner of');
    if (!selection) return undefined;
    const { heap, addresses, label } = selection;
    try {
      const result = await this.ui_.progress(`Heapleak: finding the owner of ${label}`, (_r, token) => this.daemon_.owner(heap, addresses, token));
      await this.ui_.showText(`Owner of ${label}`, JSON.stringify(result, null, 2), 'json');
      return result;
    } catch (error) {
      await this.optionalFailed('owner', 'heapleak.ownerAvailable', error);
      return undefined;
    }
  }

  async explain(): Promise<Record<string, unknown> | undefined> {
    const diff = this.store.diffs[this.store.diffs.length - 1];
    if (!diff?.later) {
      void this.ui_.error('Heapleak: run a three-heap leak diff first; the explanation is about its baseline, target and later heaps.');
      return undefined;
    }
    try {
      const later = diff.later;
      const result = await this.ui_.progress('Heapleak: explaining the leak', (_r, token) =>
        this.daemon_.explain({ baseline: diff.baseline, target: diff.target, later }, token),
      );
      const text = typeof result.markdown === 'string' ? result.markdown : typeof result.text === 'string' ? result.text : undefined;
      await this.ui_.showText('Leak explanation', text ?? JSON.stringify(result, null, 2), text ? 'markdown' : 'json');
      return result;
    } catch (error) {
      await this.optionalFailed('explain', 'heapleak.explainAvailable', error);
      return undefined;
    }
  }

  // ---- daemon lifecycle ----------------------------------------------------

  /** After a crash: the daemon's heaps are gone; offer to load the same files again. */
  handleCrash(info: CrashInfo): Promise<HeapSummary[] | undefined> {
    const paths = this.store.heaps.map((h) => h.path);
    this.store.clear();
    const how = info.signal ? `signal ${info.signal}` : `exit code ${info.code}`;
    const lost = paths.length ? ` ${paths.length} loaded heap${paths.length === 1 ? ' was' : 's were'} lost.` : '';
    if (!info.restarting) {
      return this.ui_
        .error(`Heapleak: heapleakd crashed (${how}) too often and is not restarted.${lost} See the Heapleak output.`, 'Restart Daemon')
        .then(() => undefined);
    }
    const actions = paths.length ? ['Reload Heaps'] : [];
    return this.ui_
      .warn(`Heapleak: heapleakd crashed (${how}) and was restarted.${lost}`, ...actions)
      .then((action) => (action === 'Reload Heaps' && paths.length ? this.loadHeaps(paths) : undefined));
  }

  /** The heap a tree node belongs to, else the only loaded heap, else the user's pick. */
  async heapFor(node: unknown, title: string): Promise<string | undefined> {
    const heap = (node as { heap?: unknown } | undefined)?.heap;
    if (typeof heap === 'string' && this.store.heap(heap)) return heap;
    return this.pickHeap(title);
  }

  private async pickHeap(title: string): Promise<string | undefined> {
    const heaps = this.store.heaps;
    if (heaps.length === 0) {
      void this.ui_.error('Heapleak: no heap is loaded.', 'Load Heap Dump(s)').then((a) => (a ? this.loadHeaps() : undefined));
      return undefined;
    }
    if (heaps.length === 1) return heaps[0].heap;
    return this.ui_.pick(
      heaps.map((h) => ({ label: h.name, description: h.heap, detail: h.path, value: h.heap })),
      { title },
    );
  }
}

