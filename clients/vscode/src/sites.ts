// Allocation sites from a dump taken elsewhere, mapped to this workspace:
// `heapleak.pathMappings` prefixes (`/app/` -> `${workspaceFolder}/`), and
// which sites are the program's own code (squiggled) rather than gems, the
// Ruby standard library, VM internals or files outside every workspace
// folder (shown in the tree only). Pure: no VS Code, no file system.

import * as path from 'node:path';

/** `{"/app/": "${workspaceFolder}/"}`: a site path prefix -> a local prefix. */
export type PathMappings = Record<string, string>;

/** What kind of code a site is; only `app` sites inside a workspace folder are squiggled. */
export type SiteKind = 'app' | 'gem' | 'stdlib' | 'internal' | 'outside';

/**
 * `${workspaceFolder}` -> the first folder, `${workspaceFolder:name}` -> the
 * folder of that name; undefined when the variable names no open folder.
 */
export function expandFolderVariables(value: string, folders: string[]): string | undefined {
  let missing = false;
  const out = value.replace(/\$\{workspaceFolder(?::([^}]+))?\}/g, (_whole, name?: string) => {
    const folder = name ? folders.find((f) => path.basename(f) === name) : folders[0];
    if (folder === undefined) missing = true;
    return folder ?? '';
  });
  return missing ? undefined : out;
}

/**
 * The local path a site's file maps to by the longest matching prefix of
 * `mappings`, or undefined when no prefix matches (or the mapping names a
 * folder that is not open). Prefixes match whole path components only when
 * they end with a separator, as users write them (`/app/`); `/app` alone
 * matches `/app/x.rb` and `/app`, not `/apple/x.rb`.
 */
export function mapSitePath(file: string, mappings: PathMappings | undefined, folders: string[]): string | undefined {
  if (!mappings) return undefined;
  let best: { from: string; to: string } | undefined;
  for (const [from, to] of Object.entries(mappings)) {
    if (!from || typeof to !== 'string') continue;
    const bounded = from.endsWith('/') || from.endsWith('\\') || file.length === from.length || file[from.length] === '/' || file[from.length] === '\\';
    if (!file.startsWith(from) || !bounded) continue;
    if (!best || from.length > best.from.length) best = { from, to };
  }
  if (!best) return undefined;
  const target = expandFolderVariables(best.to, folders);
  if (target === undefined) return undefined;
  const rest = file.slice(best.from.length).replace(/^[\\/]+/, '');
  return rest ? path.join(target, rest) : path.normalize(target);
}

/**
 * Gems and the standard library by their install paths: `/gems/NAME-VER/`
 * (RubyGems, Bundler's vendor/bundle), `/rubygems/` and `lib/ruby/3.1.0/`
 * (the stdlib; `lib/ruby/gems/` is a gem); `<internal:...>` and `(eval)` are
 * VM internals. The rest is the program's own code, wherever it lives.
 */
export function classifySitePath(file: string): Exclude<SiteKind, 'outside'> {
  const f = file.replace(/\\/g, '/');
  if (!f || f.startsWith('<') || f === '(eval)' || /^\(eval( at [^)]*)?\)$/.test(f)) return 'internal';
  if (/(^|\/)gems\//.test(f)) return 'gem';
  if (/(^|\/)lib\/ruby\/(\d+\.\d+(\.\d+)?|site_ruby|vendor_ruby)\//.test(f)) return 'stdlib';
  if (/(^|\/)rubygems(\/|\.rb$)/.test(f)) return 'gem';
  return 'app';
}

/** Is `file` (absolute) inside one of `folders`? */
export function insideFolders(file: string, folders: string[]): boolean {
  return folders.some((folder) => {
    const rel = path.relative(folder, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  });
}

/** A site's kind once resolved: `app` code the workspace does not hold is `outside`. */
export function siteKind(file: string, resolved: string | undefined, folders: string[]): SiteKind {
  const kind = classifySitePath(file);
  if (kind !== 'app') return kind;
  return resolved && insideFolders(resolved, folders) ? 'app' : 'outside';
}

/** Tree wording for the kinds that are not squiggled. */
export const kSiteKindText: Record<SiteKind, string> = {
  app: 'your code',
  gem: 'a gem',
  stdlib: 'the Ruby standard library',
  internal: 'VM internals',
  outside: 'outside the workspace folders',
};
