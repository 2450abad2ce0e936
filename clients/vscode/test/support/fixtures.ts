// Answers shaped like heapleakd's (taken from a class_cache run), for the
// unit tests that fake the daemon.
import { ExplainResult, HeapSummary, ObjectResult, RootPathResult, RootResult, StatsResult } from '../../src/protocol';

export function heap(id: string, name: string, objects = 63237): HeapSummary {
  return { heap: id, name, path: `/dumps/${name}`, objects, residentBytes: 4510397, loadSeconds: 0.32, traced: true, brokenLines: 0, firstBrokenLines: [] };
}

export const stats: StatsResult = {
  threeWay: true,
  rule: 'address+type+class name+value+allocation site+generation',
  compacted: false,
  warnings: [],
  groups: [
    { key: 'STRING', count: 1805, memsize: 86648, samples: ['0x7fb34b78de20', '0x7fb34b78de48'] },
    { key: 'User', count: 300, memsize: 24000, samples: ['0x7fb34b7a80b8', '0x7fb34b7a8270', '0x7fb34b7a8428'] },
  ],
  total: { count: 2105, memsize: 110648 },
};

export const rootDot = `# heapleak root
digraph leak {
rankdir=RL
node [shape=box, fontname="monospace", fontsize=10];
subgraph sources {
style=filled; color=lightgrey;
"0x7fb34b7a80b8" [color=blue, fontcolor=blue, label="0x7fb34b7a80b8\\nUser\\ntests/gen/leakgen.rb:120"];
"0x7fb34b7a8270" [color=blue, fontcolor=blue, label="0x7fb34b7a8270\\nUser\\ntests/gen/leakgen.rb:120"];
"0x7fb34b7a8428" [color=blue, fontcolor=blue, label="0x7fb34b7a8428\\nUser\\ntests/gen/leakgen.rb:120"];
}
"0x7fb34b918f38" [color=red, penwidth=2, label="0x7fb34b918f38\\nHASH"];
"0x7fb34b918fb0" [color=grey40, style=dashed, label="0x7fb34b918fb0\\nCLASS:UserCache"];
"0x7fb34b918f38" -> "0x7fb34b7a80b8";
"0x7fb34b918f38" -> "0x7fb34b7a8270";
"0x7fb34b918f38" -> "0x7fb34b7a8428";
"0x7fb34b918fb0" -> "0x7fb34b918f38";
"ROOT:vm" [shape=ellipse, style=filled, fillcolor=lightgrey, label="GC root\\nvm"];
"ROOT:vm" -> "0x7fb34b918fb0";
}
`;

export const root: RootResult = {
  retainer: '0x7fb34b918f38',
  distance: 1,
  dot: rootDot,
  nodes: [
    { address: '0x7fb34b7a80b8', type: 'OBJECT', class: 'User', key: 'User', memsize: 80, role: 'sample', sample: true },
    { address: '0x7fb34b918f38', type: 'HASH', class: 'Hash', key: 'HASH', memsize: 9000, role: 'retainer', sample: false },
  ],
  edges: [{ from: '0x7fb34b918f38', to: '0x7fb34b7a80b8' }],
  unknown: [],
  retainerObject: { address: '0x7fb34b918f38', type: 'HASH', class: 'Hash', key: 'HASH', memsize: 9000, file: 'tests/gen/leakgen.rb', line: 88 },
  rootPath: { root: 'vm', path: ['0x7fb34b918fb0', '0x7fb34b918f38'], objects: [] },
};

export const object: ObjectResult = {
  address: '0x7fb34b7a80b8',
  type: 'OBJECT',
  class: 'User',
  key: 'User',
  memsize: 80,
  file: 'tests/gen/leakgen.rb',
  line: 120,
  generation: 19,
  referencesCount: 3,
  referrersCount: 1,
  record: { address: '0x7fb34b7a80b8', type: 'OBJECT', class: '0x7fb34ee6e458', ivars: 3, file: 'tests/gen/leakgen.rb', line: 120, generation: 19, memsize: 80 },
};

export const path: RootPathResult = {
  root: 'vm',
  path: ['0x7fb34ee6a858', '0x7fb34b918fb0', '0x7fb34b918f38', '0x7fb34b7a80b8'],
  objects: [
    { address: '0x7fb34ee6a858', type: 'CLASS', class: '#<Class:0x1>', key: 'CLASS:Object', memsize: 4728 },
    { address: '0x7fb34b918fb0', type: 'CLASS', key: 'CLASS:UserCache', memsize: 700 },
    { address: '0x7fb34b918f38', type: 'HASH', class: 'Hash', key: 'HASH', memsize: 9000 },
    { address: '0x7fb34b7a80b8', type: 'OBJECT', class: 'User', key: 'User', memsize: 80, file: 'tests/gen/leakgen.rb', line: 120 },
  ],
};

// `explain` in the one-row-per-leak shape (issue 12's contract), as a
// Sinatra app would answer it whose request handler subscribes a new
// ActiveSupport::Notifications listener per request (1,000 requests between
// dumps) and keeps a per-request log in App.@request_log; the finalizer
// table WeakRef churn left is reported as probably not a leak.
export const explainLeaks: ExplainResult = {
  leaks: [
    {
      key: 'Array in ActiveSupport::Notifications::Fanout@string_subscribers["render.app"]',
      signature: '9c41e07a2b5d3f68',
      holder: { address: '0x7f3a1c2e4b58', type: 'ARRAY', class: 'Array', name: 'Array', key: 'ARRAY', memsize: 8040 },
      reach: { kind: 'constant', name: 'ActiveSupport::Notifications', root: 'vm' },
      growth: { field: 'length', baseline: 4, target: 1004, later: 2004 },
      count: 3000,
      memsize: 264000,
      retained: 288000,
      objects: [
        { key: 'DATA:proc', name: 'Proc', count: 1000, memsize: 104000, sites: [{ site: '/srv/app/lib/metrics.rb:14', count: 1000 }] },
        {
          key: 'ActiveSupport::Notifications::Fanout::Subscribers::Timed',
          name: 'ActiveSupport::Notifications::Fanout::Subscribers::Timed',
          count: 1000,
          memsize: 80000,
          sites: [{ site: '/usr/lib/ruby/vendor_ruby/active_support/notifications/fanout.rb:157', count: 1000 }],
        },
        {
          key: 'STRING',
          name: 'String',
          count: 1000,
          memsize: 80000,
          sites: [
            { site: '/srv/app/lib/metrics.rb:14', count: 600 },
            { site: '/srv/app/app.rb:31', count: 400 },
          ],
        },
      ],
      owners: [{ address: '0x7f3a1c2e4b58', type: 'ARRAY', class: 'Array', name: 'Array', key: 'ARRAY', memsize: 8040, retained: 296040, objects: 3000 }],
      root: 'vm',
      path: ['0x7f3a1d000010', '0x7f3a1c2f0a28', '0x7f3a1c2f0b40', '0x7f3a1c2e4c20', '0x7f3a1c2e4b58'],
      pathNames: ['ROOT vm', 'Object', 'ActiveSupport::Notifications', 'ActiveSupport::Notifications::Fanout', 'Hash', 'Array'],
      samples: ['0x7f3a1b801a40', '0x7f3a1b801a68', '0x7f3a1b801a90'],
    },
    {
      key: 'Hash in App.@request_log',
      signature: '52e0b7c4a9f13d06',
      holder: { address: '0x7f3a1c3a9e10', type: 'HASH', class: 'Hash', name: 'Hash', key: 'HASH', memsize: 36920 },
      reach: { kind: 'class', name: 'App', root: 'vm' },
      growth: { field: 'size', baseline: 0, target: 1000, later: null },
      count: 1500,
      memsize: 100000,
      retained: 100000,
      objects: [
        { key: 'HASH', name: 'Hash', count: 500, memsize: 60000, sites: [{ site: 'app.rb:27', count: 500 }] },
        { key: 'STRING', name: 'String', count: 1000, memsize: 40000, sites: [{ site: 'app.rb:28', count: 1000 }] },
      ],
      owners: [{ address: '0x7f3a1c3a9e10', type: 'HASH', class: 'Hash', name: 'Hash', key: 'HASH', memsize: 36920, retained: 136920, objects: 1500 }],
      root: 'vm',
      path: ['0x7f3a1d000010', '0x7f3a1c3aa0b8', '0x7f3a1c3a9e10'],
      pathNames: ['ROOT vm', 'Object', 'App', 'Hash'],
      samples: ['0x7f3a1b9f0028', '0x7f3a1b9f0050'],
    },
  ],
  noise: [
    {
      key: 'hidden Arrays under the finalizers root',
      signature: 'e1d2c3b4a5968778',
      holder: null,
      reach: { kind: 'root', name: 'finalizers', root: 'finalizers' },
      growth: null,
      count: 40,
      memsize: 1600,
      retained: 1600,
      objects: [{ key: 'ARRAY', name: 'Array', count: 40, memsize: 1600 }],
      owners: [],
      root: 'finalizers',
      path: [],
      pathNames: ['ROOT finalizers'],
      samples: ['0x7f3a1b700028'],
      reason: 'finalizerTable',
      why: 'hidden arrays reachable only from the finalizers root, created by WeakMap/WeakRef/define_finalizer',
    },
  ],
  total: { count: 4540, memsize: 365600 },
  rule: 'address+type+class name+allocation site+generation',
  compacted: false,
  warnings: [],
  groupBy: 'class',
  target: 'h2',
};

// `explain` from a daemon before issue 12: one row per class (as in docs/protocol.md then).
export const explainPerClass = {
  leaks: [
    {
      key: 'User',
      count: 300,
      memsize: 24000,
      retained: 172800,
      owners: [{ address: '0x7fb34b918f38', type: 'HASH', class: 'Hash', key: 'HASH', memsize: 9000, retained: 374400, objects: 300 }],
      root: 'vm',
      path: ['0x7fb34ee6a858', '0x7fb34b918fb0', '0x7fb34b918f38'],
      samples: ['0x7fb34b7a80b8', '0x7fb34b7a8270', '0x7fb34b7a8428'],
    },
  ],
  total: { count: 2105, memsize: 110648 },
  rule: 'address+type+class name+value+allocation site+generation',
  compacted: false,
  warnings: [],
  groupBy: 'class',
  target: 'h2',
};
