// Where heapleakd is: the `heapleak.daemonPath` setting, else `heapleakd` on
// PATH, else the repo's build trees in the workspace folders. Pure: the file
// system is passed in, so the unit tests can ask "what if" without files.

import * as path from 'node:path';

export interface DaemonLookup {
  setting: string | undefined;
  workspaceFolders: string[];
  envPath: string | undefined;
  homeDir?: string;
  isExecutable: (file: string) => boolean;
}

export type DaemonResolution =
  | { found: true; path: string; source: 'setting' | 'PATH' | 'workspace' }
  | { found: false; tried: string[]; message: string };

export const kDaemonName = 'heapleakd';
export const kBuildDirs = ['build/dev/daemon', 'build/release/daemon'];

export function resolveDaemonPath(lookup: DaemonLookup): DaemonResolution {
  const tried: string[] = [];
  const setting = lookup.setting?.trim();
  if (setting) {
    // An explicit setting is the user's word: never silently fall back.
    const candidates = expandSetting(setting, lookup);
    for (const candidate of candidates) {
      tried.push(candidate);
      if (lookup.isExecutable(candidate)) return { found: true, path: candidate, source: 'setting' };
    }
    return {
      found: false,
      tried,
      message:
        `heapleak.daemonPath is set to "${setting}" but no executable is there (tried ${tried.join(', ')}). ` +
        'Fix the setting, or clear it to look on PATH and in build/dev/daemon.',
    };
  }
  for (const dir of (lookup.envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, kDaemonName);
    tried.push(candidate);
    if (lookup.isExecutable(candidate)) return { found: true, path: candidate, source: 'PATH' };
  }
  for (const folder of lookup.workspaceFolders) {
    for (const dir of kBuildDirs) {
      const candidate = path.join(folder, dir, kDaemonName);
      tried.push(candidate);
      if (lookup.isExecutable(candidate)) return { found: true, path: candidate, source: 'workspace' };
    }
  }
  return {
    found: false,
    tried,
    message:
      'heapleakd was not found on PATH nor in build/dev/daemon or build/release/daemon of the workspace. ' +
      'Install heapleak (the .deb or the .tar.gz: see docs/install.md), build it (cmake --preset dev && ' +
      'cmake --build build/dev --target heapleakd), or set heapleak.daemonPath ' +
      'to the heapleakd executable.',
  };
}

function expandSetting(setting: string, lookup: DaemonLookup): string[] {
  let value = setting;
  if (value.startsWith('~/') && lookup.homeDir) value = path.join(lookup.homeDir, value.slice(2));
  if (value.includes('${workspaceFolder}')) {
    return lookup.workspaceFolders.map((folder) => value.split('${workspaceFolder}').join(folder));
  }
  if (path.isAbsolute(value)) return [value];
  if (lookup.workspaceFolders.length === 0) return [path.resolve(value)];
  return lookup.workspaceFolders.map((folder) => path.join(folder, value));
}
