// Finds the real heapleakd and makes heap dumps for the integration tests:
// $HEAPLEAK_DAEMON, else build/dev/daemon/heapleakd in the repo; dumps from
// tests/gen/leakgen.rb (class_cache, small), made once per test file.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// out/test/support -> clients/vscode -> repo root
export const repoRoot = path.resolve(__dirname, '../../../../..');

export function daemonBinary(): string {
  const candidates = [process.env.HEAPLEAK_DAEMON, path.join(repoRoot, 'build/dev/daemon/heapleakd')].filter(Boolean) as string[];
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  throw new Error(
    `heapleakd not found (tried ${candidates.join(', ')}). Build it: cmake --preset dev && cmake --build build/dev --target heapleakd, ` +
      'or set HEAPLEAK_DAEMON.',
  );
}

export interface Dumps {
  dir: string;
  a: string;
  b: string;
  c: string;
  truth: {
    leak: { by_type: Record<string, number> };
    root: { retainer: { address: string; type: string; class: string }; distance: number; samples: string[] };
  };
  cleanup(): void;
}

/** A/B/C.json + truth.json of one class_cache run, in a fresh temp folder. */
export function makeDumps(prefix = 'heapleak-vscode-'): Dumps {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // Run from the repo root so allocation sites read tests/gen/..., as in the e2e workspace.
  execFileSync('ruby', ['tests/gen/leakgen.rb', 'class_cache', 'small', dir], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  return {
    dir,
    a: path.join(dir, 'A.json'),
    b: path.join(dir, 'B.json'),
    c: path.join(dir, 'C.json'),
    truth: JSON.parse(fs.readFileSync(path.join(dir, 'truth.json'), 'utf8')),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
