// Leak rows -> diagnostics on the lines that allocated the leaked objects:
// one entry per (row, class, allocation site) of `explain`'s leaks on traced
// dumps, with the message, the code (the row's signature) and the CodeLens
// text; noise rows are not squiggled. `LeakDiagnostics` rebuilds the set when
// the store's diffs change (rerun, unload, clear). Pure: the sink and the
// site resolver are passed in.

import { HeapStore, parseSite } from './model';
import { ExplainResult, LeakRow, formatBytes, formatCount } from './protocol';
import { SiteKind } from './sites';

/** One squiggle: `file` is the local path, `line` 1-based as in the dump. */
export interface SiteDiagnostic {
  file: string;
  line: number;
  message: string;
  /** The leak's signature (stable across runs), else its key. */
  code: string;
  severity: 'warning';
  heap: string;
  /** The row's signature or key: what "show leak" reveals. */
  leak: string;
  site: string;
  count: number;
  retained: number;
}

/** A site that is shown in the tree but not squiggled, and why. */
export interface SkippedSite {
  site: string;
  kind: SiteKind;
}

/** Where a site's file is locally and what kind of code it is. */
export type SiteLocator = (file: string) => Promise<{ resolved?: string; kind: SiteKind }>;

/** The CodeLens above a squiggled line: one per leak on that line. */
export interface LeakLens {
  file: string;
  line: number;
  heap: string;
  leak: string;
  title: string;
}

/** What holds the row's objects, as the message says it: the row's key (`Hash in UserCache`), else its path's end. */
export function holderText(row: LeakRow): string {
  if (row.key && row.key !== '?') return row.key;
  const names = row.pathNames ?? [];
  return names.length > 0 ? names[names.length - 1] : (row.reach?.name ?? 'a GC root');
}

/** "300 User allocated here are held by Hash in UserCache: 168.8 KiB retained". */
export function siteMessage(row: LeakRow, count: number, className: string): string {
  const retained = row.retained ?? row.memsize;
  const verb = count === 1 ? 'is' : 'are';
  return `${formatCount(count)} ${className} allocated here ${verb} held by ${holderText(row)}: ${formatBytes(retained)} retained`;
}

export function leakId(row: LeakRow): string {
  return row.signature ?? row.key;
}

/**
 * The diagnostics of one `explain` answer on `heap`: every allocation site of
 * every leak row that locates to the program's own code in the workspace.
 */
export async function buildLeakDiagnostics(
  heap: string,
  explain: ExplainResult,
  locate: SiteLocator,
): Promise<{ diagnostics: SiteDiagnostic[]; skipped: SkippedSite[] }> {
  const diagnostics: SiteDiagnostic[] = [];
  const skipped: SkippedSite[] = [];
  const located = new Map<string, Promise<{ resolved?: string; kind: SiteKind }>>();
  for (const row of explain.leaks) {
    for (const objects of row.objects ?? []) {
      for (const { site, count } of objects.sites ?? []) {
        const { file, line } = parseSite(site);
        if (!located.has(file)) located.set(file, locate(file).catch(() => ({ kind: 'outside' as const })));
        const where = await located.get(file)!;
        if (where.kind !== 'app' || !where.resolved) {
          skipped.push({ site, kind: where.kind === 'app' ? 'outside' : where.kind });
          continue;
        }
        diagnostics.push({
          file: where.resolved,
          line: Math.max(1, line),
          message: siteMessage(row, count, objects.name ?? objects.key),
          code: leakId(row),
          severity: 'warning',
          heap,
          leak: leakId(row),
          site,
          count,
          retained: row.retained ?? row.memsize,
        });
      }
    }
  }
  return { diagnostics, skipped };
}

/** One lens per (file, line, leak): the leak's whole count and bytes, not the site's. */
export function leakLenses(diagnostics: SiteDiagnostic[], rows: Map<string, LeakRow>): LeakLens[] {
  const seen = new Set<string>();
  const lenses: LeakLens[] = [];
  for (const d of diagnostics) {
    const key = `${d.file}\0${d.line}\0${d.heap}\0${d.leak}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const row = rows.get(`${d.heap}\0${d.leak}`);
    const count = row?.count ?? d.count;
    const retained = row ? (row.retained ?? row.memsize) : d.retained;
    lenses.push({
      file: d.file,
      line: d.line,
      heap: d.heap,
      leak: d.leak,
      title: `heapleak: ${formatCount(count)} leaked object${count === 1 ? '' : 's'}, ${formatBytes(retained)} retained — show leak`,
    });
  }
  return lenses;
}

/** Receives the whole current set each time it changes (an empty set clears). */
export type DiagnosticSink = (diagnostics: SiteDiagnostic[], lenses: LeakLens[]) => void;

/**
 * Keeps the sink in step with the store: every leak diff that has `explain`
 * rows contributes its sites; a rerun replaces a diff's, an unload or a
 * daemon restart removes them. Rebuilds are serialised and the last wins.
 */
export class LeakDiagnostics {
  private generation_ = 0;
  private running_: Promise<void> = Promise.resolve();
  private subscription_: { dispose(): void };
  /** Sites not squiggled in the last rebuild (gems, stdlib, outside the workspace). */
  skipped: SkippedSite[] = [];
  current: SiteDiagnostic[] = [];

  constructor(
    private readonly store_: HeapStore,
    private readonly locate_: SiteLocator,
    private readonly sink_: DiagnosticSink,
  ) {
    this.subscription_ = store_.onDidChange(() => void this.rebuild());
  }

  /** Resolves when the set for the store's present state has reached the sink. */
  rebuild(): Promise<void> {
    const generation = ++this.generation_;
    this.running_ = this.running_.then(async () => {
      if (generation !== this.generation_) return;
      const diagnostics: SiteDiagnostic[] = [];
      const skipped: SkippedSite[] = [];
      const rows = new Map<string, LeakRow>();
      for (const diff of this.store_.diffs) {
        if (!diff.explain) continue;
        for (const row of diff.explain.leaks) rows.set(`${diff.target}\0${leakId(row)}`, row);
        const built = await buildLeakDiagnostics(diff.target, diff.explain, this.locate_);
        diagnostics.push(...built.diagnostics);
        skipped.push(...built.skipped);
      }
      if (generation !== this.generation_) return;
      this.current = diagnostics;
      this.skipped = skipped;
      this.sink_(diagnostics, leakLenses(diagnostics, rows));
    });
    return this.running_;
  }

  dispose(): void {
    this.subscription_.dispose();
    this.sink_([], []);
  }
}
