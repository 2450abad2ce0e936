// The extension's commands as one table: each command id of package.json's
// contributes.commands with its handler, which activate() registers in a
// loop. Handlers are small named functions over `CommandDeps` (what
// activate() wires: VS Code's views, the logic of commands.ts); this file
// keeps no state of its own.

import * as vscode from 'vscode';
import { HeapleakClient } from './client';
import { Commands, Ui } from './commands';
import { HeapStore, TreeModel, TreeNode } from './model';
import { describeError } from './protocol';
import { TreemapModel, TreemapView } from './treemap';

/** What the handlers act on, built once by activate(). */
export interface CommandDeps {
  commands: Commands;
  model: TreeModel;
  treeView: vscode.TreeView<TreeNode>;
  store: HeapStore;
  ui: Ui;
  treemapModel: TreemapModel;
  showTreemap: (view: TreemapView) => void;
  /** The client, or undefined after telling the user how to fix a missing daemon. */
  daemon: () => HeapleakClient | undefined;
  showOutput: () => void;
}

export interface CommandEntry {
  id: string;
  // VS Code passes whatever its caller gave (a tree node, a URI, nothing).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run: (...args: any[]) => unknown;
  /** false: registered as it is (it needs no daemon and cannot fail). */
  guarded?: boolean;
}

/** Thrown when heapleakd cannot be found: daemon() has told the user already. */
export class NoDaemon extends Error {
  constructor() {
    super('heapleakd is not available (see the Heapleak output).');
  }
}

// Commands the tree invokes pass the clicked node and the selection; a
// missing daemon is reported once by daemon() and ends the command.
export function guarded<A extends unknown[]>(run: (...args: A) => unknown, log: (line: string) => void) {
  return async (...args: A): Promise<void> => {
    try {
      await run(...args);
    } catch (error) {
      if (error instanceof NoDaemon) return;
      log(`command failed: ${error instanceof Error ? error.stack : String(error)}`);
      void vscode.window.showErrorMessage(`Heapleak: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

/** The files of an explorer command: the selection, else the clicked file. */
function uriPaths(uri?: vscode.Uri, uris?: vscode.Uri[]): string[] | undefined {
  const all = uris && uris.length > 0 ? uris : uri instanceof vscode.Uri ? [uri] : [];
  return all.length > 0 ? all.map((u) => u.fsPath) : undefined;
}

function objectSelection(treeView: vscode.TreeView<TreeNode>): TreeNode | undefined {
  return treeView.selection.find((n) => n.kind === 'object');
}

async function revealLeak(deps: CommandDeps, heap?: string, leak?: string): Promise<void> {
  const node = heap && leak ? await deps.model.findLeak(heap, leak) : undefined;
  if (!node) {
    void vscode.window.showWarningMessage('Heapleak: that leak is no longer in the Heapleak view (the diff was rerun or its heaps unloaded).');
    return;
  }
  await deps.treeView.reveal(node, { select: true, focus: true, expand: true });
}

async function loadHeap(deps: CommandDeps, uri?: vscode.Uri, uris?: vscode.Uri[]): Promise<void> {
  if (!deps.daemon()) return;
  await deps.commands.loadHeaps(uriPaths(uri, uris));
}

async function showTreemap(deps: CommandDeps, node?: TreeNode): Promise<void> {
  const { store } = deps;
  const heap = await deps.commands.heapFor(node, 'Heapleak: dominator treemap of');
  if (!heap) return;
  try {
    const view = await deps.ui.progress(`Heapleak: dominator tree of ${store.label(heap)}`, (_r, token) => deps.treemapModel.view(heap, token));
    deps.showTreemap(view);
  } catch (error) {
    void vscode.window.showErrorMessage(`Heapleak: no treemap for ${store.label(heap)}: ${describeError(error)}`);
  }
}

async function restartDaemon(deps: CommandDeps): Promise<void> {
  const c = deps.daemon();
  if (!c) return;
  deps.store.clear();
  await c.restart();
  void vscode.window.showInformationMessage('Heapleak: heapleakd restarted; load the heaps again.');
}

/** Every command the extension contributes, with its handler. */
export function commandTable(deps: CommandDeps): CommandEntry[] {
  const { commands, treeView } = deps;
  // The clicked node, else the tree's selection (the palette passes nothing).
  const clicked = (node?: TreeNode) => node ?? treeView.selection[0];
  const selected = (nodes?: TreeNode[]) => nodes ?? [...treeView.selection];
  const object = (node?: TreeNode) => node ?? objectSelection(treeView);
  return [
    { id: 'heapleak.revealLeak', run: (heap?: string, leak?: string) => revealLeak(deps, heap, leak) },
    { id: 'heapleak.loadHeap', run: (uri?: vscode.Uri, uris?: vscode.Uri[]) => loadHeap(deps, uri, uris) },
    { id: 'heapleak.runLeakDiff', run: () => commands.runLeakDiff() },
    { id: 'heapleak.showTreemap', run: (node?: TreeNode) => showTreemap(deps, node) },
    { id: 'heapleak.findRetainer', run: (node?: TreeNode, nodes?: TreeNode[]) => commands.findRetainer(clicked(node), selected(nodes)) },
    { id: 'heapleak.pathToRoot', run: (node?: TreeNode) => commands.pathToRoot(object(node)) },
    { id: 'heapleak.inspectObject', run: (node?: TreeNode) => commands.inspectObject(object(node)) },
    { id: 'heapleak.openAllocationSite', run: (node?: TreeNode) => commands.openAllocationSite(node) },
    { id: 'heapleak.openSite', run: (node?: TreeNode) => commands.openSite(node) },
    { id: 'heapleak.unloadHeap', run: (node?: TreeNode) => commands.unloadHeap(node) },
    { id: 'heapleak.owner', run: (node?: TreeNode, nodes?: TreeNode[]) => commands.owner(clicked(node), selected(nodes)) },
    { id: 'heapleak.explain', run: () => commands.explain() },
    { id: 'heapleak.restartDaemon', run: () => restartDaemon(deps) },
    { id: 'heapleak.showOutput', run: () => deps.showOutput(), guarded: false },
  ];
}
