// Object details as a read-only document (the `object` answer, the dump line
// it came from) and allocation sites mapped to workspace files. Pure: file
// existence is passed in.

import * as path from 'node:path';
import { ObjectResult, RootPathResult, formatBytes } from './protocol';

export const kObjectScheme = 'heapleak-object';

/** heapleak-object:/h2/0x7f00.jsonc: the heap and address are in the path. */
export function objectDocumentPath(heap: string, address: string): string {
  return `/${encodeURIComponent(heap)}/${address}.jsonc`;
}

export function parseObjectDocumentPath(uriPath: string): { heap: string; address: string } | undefined {
  const match = /^\/([^/]+)\/(0x[0-9a-fA-F]+)\.jsonc$/.exec(uriPath);
  if (!match) return undefined;
  return { heap: decodeURIComponent(match[1]), address: match[2] };
}

export function siteOf(object: { file?: string; line?: number }): string | undefined {
  return object.file ? `${object.file}:${object.line ?? 0}` : undefined;
}

export function objectDocument(heapLabel: string, object: ObjectResult): string {
  const lines = [`// heapleak: object ${object.address} in heap ${heapLabel}`];
  const shown = object.name ?? object.class;
  const what = shown ? `${shown} (${object.type})` : object.type;
  lines.push(`// ${what}${object.key && object.key !== shown ? `, ${object.key}` : ''}, ${formatBytes(object.memsize ?? 0)}`);
  const site = siteOf(object);
  if (site) lines.push(`// allocated at ${site}${object.generation !== undefined ? ` (GC generation ${object.generation})` : ''}`);
  else if (object.generation !== undefined) lines.push(`// GC generation ${object.generation}`);
  lines.push(`// ${object.referrersCount} referrer${object.referrersCount === 1 ? '' : 's'}, ${object.referencesCount} reference${object.referencesCount === 1 ? '' : 's'}`);
  lines.push('// the dump record:');
  lines.push(JSON.stringify(object.record ?? {}, null, 2));
  return lines.join('\n') + '\n';
}

/** Where "allocated at FILE:LINE" sits in `objectDocument`'s text, for a document link. */
export function siteRange(text: string): { line: number; start: number; end: number; file: string; fileLine: number } | undefined {
  const lines = text.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const match = /^\/\/ allocated at (.+):(\d+)/.exec(lines[k]);
    if (match) {
      const start = '// allocated at '.length;
      return { line: k, start, end: start + match[1].length + 1 + match[2].length, file: match[1], fileLine: Number(match[2]) };
    }
  }
  return undefined;
}

export function pathDocument(heapLabel: string, address: string, result: RootPathResult): string {
  const byAddress = new Map(result.objects.map((o) => [o.address, o]));
  const lines = [`// heapleak: path from GC root "${result.root}" to ${address} in heap ${heapLabel}`];
  result.path.forEach((a, k) => {
    const o = byAddress.get(a);
    const what = o ? o.name ?? o.key ?? o.class ?? o.type : '?';
    const site = o ? siteOf(o) : undefined;
    lines.push(`${'  '.repeat(k)}${a} ${what}${site ? `  (${site})` : ''}`);
  });
  return lines.join('\n') + '\n';
}

/**
 * The workspace file an allocation site names. An absolute path that exists
 * wins; otherwise the longest tail of the path found under a workspace
 * folder (dumps taken on another machine or in a container keep paths like
 * /app/lib/user_cache.rb, the workspace has lib/user_cache.rb).
 */
export function resolveSite(file: string, workspaceFolders: string[], exists: (p: string) => boolean): string | undefined {
  if (!file || file.startsWith('<') || file === '(eval)') return undefined;
  if (path.isAbsolute(file) && exists(file)) return file;
  const parts = file.split(/[\\/]+/).filter(Boolean);
  for (let k = 0; k < parts.length; k++) {
    const tail = parts.slice(k);
    for (const folder of workspaceFolders) {
      const candidate = path.join(folder, ...tail);
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * Of `candidates` (workspace files with the site's base name), the one that
 * shares the longest tail of path components with `file`; ties go to the
 * shortest path (the least nested copy). Undefined when none shares even the
 * base name.
 */
export function bestSuffixMatch(file: string, candidates: string[]): string | undefined {
  const want = file.split(/[\\/]+/).filter(Boolean).reverse();
  let best: string | undefined;
  let bestTail = 0;
  for (const candidate of candidates) {
    const have = candidate.split(/[\\/]+/).filter(Boolean).reverse();
    let tail = 0;
    while (tail < want.length && tail < have.length && want[tail] === have[tail]) tail++;
    if (tail === 0) continue;
    if (tail > bestTail || (tail === bestTail && best !== undefined && candidate.length < best.length)) {
      best = candidate;
      bestTail = tail;
    }
  }
  return best;
}
