// The wire contract of heapleakd as the extension sees it: method names (the
// same list as protocol/method_names.h; a unit test checks they agree), error
// codes, and the shapes of the answers. Types only and tiny helpers: no I/O,
// no `vscode` import, so the CLI-free tests can use it as it is.

export const Methods = {
  initialize: 'initialize',
  initialized: 'initialized',
  shutdown: 'shutdown',
  exit: 'exit',
  cancelRequest: '$/cancelRequest',
  progress: '$/progress',
  loadHeap: 'loadHeap',
  unloadHeap: 'unloadHeap',
  listHeaps: 'listHeaps',
  stats: 'stats',
  root: 'root',
  pathToRoot: 'pathToRoot',
  object: 'object',
  referrers: 'referrers',
  references: 'references',
  owner: 'owner',
  explain: 'explain',
  dominatorTree: 'dominatorTree',
} as const;

export type MethodName = (typeof Methods)[keyof typeof Methods];

export const ErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  serverNotInitialized: -32002,
  requestCancelled: -32800,
  domainError: -32803,
} as const;

export type DomainReason =
  | 'fileNotFound'
  | 'notReadable'
  | 'notAHeapDump'
  | 'corruptInput'
  | 'unknownHeap'
  | 'unknownAddress'
  | 'noAnswer'
  | 'overBudget'
  | 'invalidArgument';

export interface InitializeResult {
  serverInfo: { name: string; version: string };
  capabilities: Record<string, unknown>;
}

export interface LoadHeapParams {
  path: string;
  name?: string;
  workDoneToken?: string;
}

export interface HeapSummary {
  heap: string;
  name: string;
  path: string;
  objects: number;
  roots?: Record<string, number>;
  brokenLines?: number;
  firstBrokenLines?: { line: number; reason: string }[];
  missingReferences?: number;
  residentBytes: number;
  loadSeconds: number;
  traced?: boolean;
  gzip?: boolean;
  [extra: string]: unknown;
}

export interface ListHeapsResult {
  heaps: HeapSummary[];
}

export type GroupBy = 'class' | 'site' | 'generation';

export interface StatsParams {
  baseline: string;
  target: string;
  later?: string;
  groupBy?: GroupBy;
  limit?: number;
  samples?: number;
}

export interface LeakGroup {
  key: string;
  count: number;
  memsize: number;
  samples: string[];
  vmInternal?: boolean; // mostly VM internals: ranked after the program's own groups
}

export interface StatsResult {
  groups: LeakGroup[];
  total: { count: number; memsize: number };
  rule?: string;
  compacted?: boolean;
  warnings?: string[];
  threeWay?: boolean;
  [extra: string]: unknown;
}

/** `explain` takes the leak diff's params, as `stats` does. */
export type ExplainParams = StatsParams;

/** How Ruby code reaches a leak's holder: `{kind: "class", name: "UserCache", root: "vm"}`. */
export interface LeakReach {
  kind: string;
  name: string;
  root?: string;
}

/** Array length / Hash size (else the number of references) of the holder in the three heaps. */
export interface LeakGrowth {
  field: string;
  baseline: number | null;
  target: number | null;
  later: number | null;
}

export interface LeakObjects {
  key: string;
  name?: string;
  count: number;
  memsize: number;
  /** `file:line` allocation sites, only in traced dumps. */
  sites?: { site: string; count: number }[];
}

/**
 * One row of `explain`. Daemons before issue 12 send one row per class with
 * key, count, memsize, retained, owners, root, path and samples only; the
 * rest (holder, signature, growth, objects...) marks the one-row-per-leak
 * answer. Noise rows add `reason` and `why`.
 */
export interface LeakRow {
  key: string;
  signature?: string;
  holder?: ObjectBrief | null;
  reach?: LeakReach | null;
  growth?: LeakGrowth | null;
  count: number;
  memsize: number;
  retained?: number;
  objects?: LeakObjects[];
  owners?: (ObjectBrief & { retained?: number; objects?: number })[];
  root?: string;
  path?: string[];
  pathNames?: string[];
  samples: string[];
  reason?: string;
  why?: string;
  [extra: string]: unknown;
}

export interface ExplainResult {
  leaks: LeakRow[];
  noise?: LeakRow[];
  total: { count: number; memsize: number };
  rule?: string;
  compacted?: boolean;
  warnings?: string[];
  groupBy?: string;
  target?: string;
  [extra: string]: unknown;
}

/** True for the one-row-per-leak answer (issue 12); false for the older one row per class. */
export function isLeakRows(result: unknown): result is ExplainResult {
  if (typeof result !== 'object' || result === null) return false;
  const r = result as Partial<ExplainResult>;
  if (!Array.isArray(r.leaks)) return false;
  if (Array.isArray(r.noise)) return true;
  return r.leaks.some((row) => typeof row === 'object' && row !== null && ('holder' in row || 'signature' in row));
}

/** The answer with the lists the tree walks always present, so a sparse row shows as less, not as a crash. */
export function withLists(result: ExplainResult): ExplainResult {
  const rows = (list: unknown): LeakRow[] =>
    (Array.isArray(list) ? list : [])
      .filter((row): row is LeakRow => typeof row === 'object' && row !== null)
      .map((row) => ({ ...row, key: String(row.key ?? '?'), samples: Array.isArray(row.samples) ? row.samples : [] }));
  return { ...result, leaks: rows(result.leaks), noise: rows(result.noise), total: result.total ?? { count: 0, memsize: 0 } };
}

/** How many objects the holder gained per dump, from its growth; undefined when unknown. */
export function growthPerDump(growth: LeakGrowth | null | undefined): number | undefined {
  if (!growth) return undefined;
  const { baseline, target, later } = growth;
  const known = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
  if (known(baseline) && known(later)) return Math.round((later - baseline) / 2);
  if (known(baseline) && known(target)) return target - baseline;
  if (known(target) && known(later)) return later - target;
  return undefined;
}

export interface DominatorTreeParams {
  heap: string;
  /** An address, or absent for the super-root above every GC root. */
  root?: string;
  depth?: number;
  limit?: number;
  minBytes?: number;
}

/** A node of `dominatorTree`: `children` absent when it lies deeper than asked (ask again from it). */
export interface DominatorNode extends ObjectBrief {
  retained: number;
  childCount?: number;
  other?: { count: number; retained: number };
  children?: DominatorNode[];
}

export interface DominatorTreeResult {
  root: DominatorNode;
  reachable: number;
  unreachable: { count: number; memsize: number };
  heap: string;
}

export interface ObjectBrief {
  address: string;
  type: string;
  class?: string | null;
  key?: string;
  /** The Ruby-facing name (`UserCache`, `PriceCalculator::Quote`, `StringIO`), from daemons that send it. */
  name?: string;
  memsize?: number;
  file?: string;
  line?: number;
  generation?: number;
  [extra: string]: unknown;
}

export type NodeRole = 'sample' | 'retainer' | 'path' | 'rootPath';

export interface GraphNode extends ObjectBrief {
  role: NodeRole;
  sample: boolean;
}

export interface RootParams {
  heap: string;
  addresses: string[];
  minSamples?: number;
  maxNodes?: number;
}

export interface RootPathResult {
  root: string;
  path: string[];
  objects: ObjectBrief[];
}

export interface RootResult {
  retainer: string | null;
  distance: number;
  dot: string;
  nodes: GraphNode[];
  edges: { from: string; to: string }[];
  unknown: string[];
  rootPath?: RootPathResult;
  retainerObject?: ObjectBrief;
  /** Issue 12: true when the samples are held by different containers, listed in `groups`. */
  split?: boolean;
  groups?: { retainer: ObjectBrief | null; samples: string[] }[];
  [extra: string]: unknown;
}

export interface ObjectResult extends ObjectBrief {
  referencesCount: number;
  referrersCount: number;
  record: Record<string, unknown>;
}

export interface RelatedParams {
  heap: string;
  address: string;
  offset?: number;
  limit?: number;
}

export interface RelatedResult {
  address: string;
  total: number;
  offset: number;
  items: ObjectBrief[];
}

export interface ProgressValue {
  kind: 'begin' | 'report' | 'end';
  percentage?: number;
  message?: string;
  title?: string;
  cancellable?: boolean;
}

/** Shape of an error as vscode-jsonrpc's ResponseError exposes it. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

export function isWireError(value: unknown): value is WireError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as WireError).code === 'number' &&
    typeof (value as WireError).message === 'string'
  );
}

export function errorReason(error: unknown): string | undefined {
  if (!isWireError(error)) return undefined;
  const data = error.data as { reason?: unknown } | undefined;
  return typeof data?.reason === 'string' ? data.reason : undefined;
}

export function isMethodNotFound(error: unknown): boolean {
  return isWireError(error) && error.code === ErrorCodes.methodNotFound;
}

export function isCancelled(error: unknown): boolean {
  return isWireError(error) && error.code === ErrorCodes.requestCancelled;
}

/** A one-line message for the user: the daemon's message, with the reason when it adds something. */
export function describeError(error: unknown): string {
  if (isWireError(error)) {
    if (error.code === ErrorCodes.requestCancelled) return 'Cancelled.';
    const reason = errorReason(error);
    return reason && !error.message.includes(reason) ? `${error.message} (${reason})` : error.message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Bytes in human units, exactly as heapleak-client's `human_bytes`
 * (clients/client/terminal.cpp) prints them, so the editor and the terminal
 * agree: whole bytes below 1000, else one decimal in the next unit from 1000
 * on (`80 B`, `999 B`, `1.0 KiB`, `84.6 KiB`, `1.5 MiB`). printf rounds an
 * exact tie to even (1.25 -> `1.2`), toFixed away from zero: ties go even.
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '?';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${fixedHalfEven(value, unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** `value.toFixed(digits)`, except that an exact tie rounds to even, as printf does. */
function fixedHalfEven(value: number, digits: number): string {
  const scaled = value * 10 ** digits;
  const floor = Math.floor(scaled);
  if (scaled - floor === 0.5) {
    const even = floor % 2 === 0 ? floor : floor + 1;
    return (even / 10 ** digits).toFixed(digits);
  }
  return value.toFixed(digits);
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
