import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveDaemonPath } from '../../src/daemon_path';

const only = (...files: string[]) => (file: string) => files.includes(file);

test('the setting wins, relative to the workspace', () => {
  const r = resolveDaemonPath({ setting: 'bin/heapleakd', workspaceFolders: ['/ws'], envPath: '/usr/bin', isExecutable: only('/ws/bin/heapleakd', '/usr/bin/heapleakd') });
  assert.deepEqual(r, { found: true, path: '/ws/bin/heapleakd', source: 'setting' });
});

test('a setting that points nowhere is an error, not a fallback', () => {
  const r = resolveDaemonPath({ setting: '/opt/nope/heapleakd', workspaceFolders: ['/ws'], envPath: '/usr/bin', isExecutable: only('/usr/bin/heapleakd') });
  assert.equal(r.found, false);
  if (!r.found) {
    assert.match(r.message, /heapleak\.daemonPath/);
    assert.deepEqual(r.tried, ['/opt/nope/heapleakd']);
  }
});

test('${workspaceFolder} and ~ expand', () => {
  const r = resolveDaemonPath({ setting: '${workspaceFolder}/out/heapleakd', workspaceFolders: ['/a', '/b'], envPath: '', isExecutable: only('/b/out/heapleakd') });
  assert.deepEqual(r, { found: true, path: '/b/out/heapleakd', source: 'setting' });
  const h = resolveDaemonPath({ setting: '~/bin/heapleakd', workspaceFolders: [], envPath: '', homeDir: '/home/u', isExecutable: only('/home/u/bin/heapleakd') });
  assert.equal(h.found && h.path, '/home/u/bin/heapleakd');
});

test('PATH before the workspace build trees', () => {
  const r = resolveDaemonPath({ setting: '', workspaceFolders: ['/ws'], envPath: '/x:/usr/local/bin', isExecutable: only('/usr/local/bin/heapleakd', '/ws/build/dev/daemon/heapleakd') });
  assert.deepEqual(r, { found: true, path: '/usr/local/bin/heapleakd', source: 'PATH' });
});

test('build/dev then build/release in the workspace', () => {
  const rel = resolveDaemonPath({ setting: undefined, workspaceFolders: ['/ws'], envPath: '/usr/bin', isExecutable: only('/ws/build/release/daemon/heapleakd') });
  assert.deepEqual(rel, { found: true, path: '/ws/build/release/daemon/heapleakd', source: 'workspace' });
  const dev = resolveDaemonPath({ setting: undefined, workspaceFolders: ['/ws'], envPath: '/usr/bin', isExecutable: only('/ws/build/release/daemon/heapleakd', '/ws/build/dev/daemon/heapleakd') });
  assert.equal(dev.found && dev.path, '/ws/build/dev/daemon/heapleakd');
});

test('not found: the message says how to fix it', () => {
  const r = resolveDaemonPath({ setting: '', workspaceFolders: ['/ws'], envPath: '/usr/bin', isExecutable: () => false });
  assert.equal(r.found, false);
  if (!r.found) {
    assert.match(r.message, /cmake --build build\/dev --target heapleakd/);
    assert.match(r.message, /heapleak\.daemonPath/);
    assert.deepEqual(r.tried, ['/usr/bin/heapleakd', '/ws/build/dev/daemon/heapleakd', '/ws/build/release/daemon/heapleakd']);
  }
});
