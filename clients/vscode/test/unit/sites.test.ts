// heapleak.pathMappings and which allocation sites are the program's own code
// (squiggled) or gems, the standard library, VM internals, files outside the
// workspace (tree only).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifySitePath, expandFolderVariables, insideFolders, mapSitePath, siteKind } from '../../src/sites';

test('${workspaceFolder} and ${workspaceFolder:name} expand to open folders only', () => {
  assert.equal(expandFolderVariables('${workspaceFolder}/', ['/ws/shop', '/ws/lib']), '/ws/shop/');
  assert.equal(expandFolderVariables('${workspaceFolder:lib}/src', ['/ws/shop', '/ws/lib']), '/ws/lib/src');
  assert.equal(expandFolderVariables('${workspaceFolder:nope}/', ['/ws/shop']), undefined);
  assert.equal(expandFolderVariables('${workspaceFolder}/', []), undefined);
  assert.equal(expandFolderVariables('/srv/code/', []), '/srv/code/');
});

test('a site maps by the longest matching prefix', () => {
  const mappings = { '/app/': '${workspaceFolder}/', '/app/vendor/engine/': '${workspaceFolder:engine}/', '/srv': '/home/me/srv' };
  const folders = ['/ws/shop', '/ws/engine'];
  assert.equal(mapSitePath('/app/lib/price_calculator.rb', mappings, folders), '/ws/shop/lib/price_calculator.rb');
  assert.equal(mapSitePath('/app/vendor/engine/lib/x.rb', mappings, folders), '/ws/engine/lib/x.rb');
  // a prefix without a trailing separator matches whole components only
  assert.equal(mapSitePath('/srv/a.rb', mappings, folders), '/home/me/srv/a.rb');
  assert.equal(mapSitePath('/srvx/a.rb', mappings, folders), undefined);
  assert.equal(mapSitePath('/apple/a.rb', mappings, folders), undefined);
  assert.equal(mapSitePath('lib/a.rb', mappings, folders), undefined);
  assert.equal(mapSitePath('/app/a.rb', undefined, folders), undefined);
  // a mapping to a folder that is not open maps nothing (the fallbacks then run)
  assert.equal(mapSitePath('/app/vendor/engine/lib/x.rb', mappings, ['/ws/shop']), undefined);
});

test('gems, the standard library and VM internals are told from the program', () => {
  const cases: [string, string][] = [
    ['/app/lib/price_calculator.rb', 'app'],
    ['lib/user_cache.rb', 'app'],
    ['/usr/local/bundle/gems/rack-2.2.8/lib/rack/request.rb', 'gem'],
    ['/app/vendor/bundle/ruby/3.1.0/gems/sinatra-3.0.5/lib/sinatra/base.rb', 'gem'],
    ['/var/lib/gems/3.1.0/gems/i18n-1.14.1/lib/i18n.rb', 'gem'],
    ['/usr/lib/ruby/3.1.0/rubygems/core_ext/kernel_require.rb', 'stdlib'],
    ['/usr/lib/ruby/3.1.0/set.rb', 'stdlib'],
    ['/opt/ruby/lib/ruby/3.3.0/json/common.rb', 'stdlib'],
    ['/usr/lib/ruby/vendor_ruby/active_support/notifications/fanout.rb', 'stdlib'],
    ['/usr/lib/ruby/gems/3.1.0/gems/json-2.6.1/lib/json.rb', 'gem'],
    ['/home/me/.gem/ruby/3.1.0/bundler/gems/rails-abc123/lib/rails.rb', 'gem'],
    ['<internal:kernel>', 'internal'],
    ['(eval)', 'internal'],
    ['(eval at /app/lib/x.rb:3)', 'internal'],
    ['', 'internal'],
  ];
  for (const [file, kind] of cases) assert.equal(classifySitePath(file), kind, file);
});

test('program code outside every workspace folder is not squiggled', () => {
  const folders = ['/ws/shop'];
  assert.equal(insideFolders('/ws/shop/lib/a.rb', folders), true);
  assert.equal(insideFolders('/ws/shopping/a.rb', folders), false);
  assert.equal(insideFolders('/ws/shop', folders), false);
  assert.equal(siteKind('/app/lib/a.rb', '/ws/shop/lib/a.rb', folders), 'app');
  assert.equal(siteKind('/app/lib/a.rb', undefined, folders), 'outside');
  assert.equal(siteKind('/etc/app/a.rb', '/etc/app/a.rb', folders), 'outside');
  // a gem vendored inside the workspace is still a gem
  assert.equal(siteKind('/ws/shop/vendor/bundle/ruby/3.1.0/gems/rack-2.2.8/lib/rack.rb', '/ws/shop/vendor/bundle/ruby/3.1.0/gems/rack-2.2.8/lib/rack.rb', folders), 'gem');
});
