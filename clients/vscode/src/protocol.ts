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

export interface ObjectBrief {
  address: string;
  type: string;
  class?: string | null;
  key?: string;
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

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '?';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
