// Answers shaped like heapleakd's (taken from a class_cache run), for the
// unit tests that fake the daemon.
import { HeapSummary, ObjectResult, RootPathResult, RootResult, StatsResult } from '../../src/protocol';

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
