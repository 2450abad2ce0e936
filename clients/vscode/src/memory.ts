// explain's `memory` (docs/protocol.md, docs/memory.md): where the series'
// RSS grew, read from the wire, as the one line the leaks view shows above
// the rows (below them without RSS): the RSS growth and the verdict, the
// parts in the description, what to try and the notes in the tooltip. Same
// numbers and units as the CLIs.
import { formatBytes } from './protocol';

export interface MemoryPart {
  name: string;
  label: string;
  bytes: number | null;
}

export interface MemoryAccounting {
  from: string;
  to: string;
  rss: (number | null)[] | null;
  rssGrowth: number | null;
  parts: MemoryPart[];
  verdict: string;
  verdictText: string;
  tryNext?: string[];
  notes?: string[];
  doc?: string;
  [extra: string]: unknown;
}

/** A growth, signed: "+82.7 MiB", "-307.2 KiB". */
export function signedBytes(bytes: number): string {
  return `${bytes < 0 ? '-' : '+'}${formatBytes(Math.abs(bytes))}`;
}

/** True when `value` has the fields the line reads. */
export function isMemory(value: unknown): value is MemoryAccounting {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Partial<MemoryAccounting>;
  return typeof m.verdictText === 'string' && Array.isArray(m.parts);
}

/** Whether the series' RSS was recorded (capture manifests, version 2). */
export function rssRecorded(memory: MemoryAccounting): boolean {
  return memory.rssGrowth !== null && memory.rssGrowth !== undefined;
}

export interface MemoryLine {
  label: string;
  description: string;
  tooltip: string;
}

export function memoryLine(memory: MemoryAccounting): MemoryLine {
  const span = `${memory.from} to ${memory.to}`;
  const rss = rssRecorded(memory) ? `RSS ${signedBytes(memory.rssGrowth as number)}` : 'RSS not recorded';
  // A part not recorded is left out, never shown as 0.
  const parts = memory.parts
    .filter((part) => typeof part.bytes === 'number')
    .map((part) => `${part.label} ${signedBytes(part.bytes as number)}`);
  const tooltip = [
    `${rss} (${span})`,
    ...parts,
    '',
    memory.verdictText,
    ...(memory.tryNext ?? []).map((t) => `try: ${t}`),
    ...(memory.notes ?? []).map((n) => `note: ${n}`),
    ...(memory.doc ? [`the numbers: ${memory.doc}`] : []),
  ];
  // Without RSS the verdict says so itself ("RSS was not recorded for A and C ...").
  const label = rssRecorded(memory) ? `Memory: ${rss} (${span}): ${memory.verdictText}` : `Memory: ${memory.verdictText}`;
  return { label, description: parts.join(', '), tooltip: tooltip.join('\n') };
}
