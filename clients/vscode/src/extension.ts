// The VS Code glue: maps `Ui` and the tree model onto the real API, owns the
// client's lifetime, the output channel, the graph webview and the object
// documents. Logic lives in commands.ts / model.ts / graph.ts, which are
// tested without VS Code; keep this file to wiring.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { HeapleakClient, TraceLevel } from './client';
import { CommandDeps, NoDaemon, commandTable, guarded } from './command_table';
import { Commands, Settings, Ui } from './commands';
import { resolveDaemonPath } from './daemon_path';
import { LeakDiagnostics, LeakLens, SiteDiagnostic } from './diagnostics';
import { kObjectScheme, objectDocumentPath, resolveSite, siteRange } from './details';
import { GraphView, buildGraphHtml, makeNonce } from './graph';
import { HeapStore, ItemView, TreeModel, TreeNode } from './model';
import { GroupBy, describeError } from './protocol';
import { TreemapModel, TreemapView, buildTreemapHtml } from './treemap';

const kViewId = 'heapleak.heaps';

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function workspacePaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration('heapleak');
  return {
    maxNodes: config.get<number>('graph.maxNodes', 200),
    retainerSamples: config.get<number>('retainer.samples', 10),
    samples: config.get<number>('samples', 50),
    minSamples: config.get<number>('retainer.minSamples', 0),
    groupBy: config.get<GroupBy>('groupBy', 'class'),
    leakView: config.get<'leaks' | 'groups'>('leakView', 'leaks'),
    pathMappings: config.get<Record<string, string>>('pathMappings', {}),
  };
}

/** Documents the extension shows: objects, owner/explain answers. Read-only. */
class DocumentStore implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider {
  private texts_ = new Map<string, string>();
  private counter_ = 0;
  private readonly changed_ = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed_.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts_.get(uri.path) ?? '// heapleak: this document is gone (the daemon restarted or the heap was unloaded)\n';
  }

  set(uriPath: string, text: string): vscode.Uri {
    this.texts_.set(uriPath, text);
    const uri = vscode.Uri.from({ scheme: kObjectScheme, path: uriPath });
    this.changed_.fire(uri);
    return uri;
  }

  textUri(title: string, extension: string): string {
    return `/answers/${++this.counter_}/${title.replace(/[^A-Za-z0-9._-]+/g, '_')}.${extension}`;
  }

  provideDocumentLinks(document: vscode.TextDocument): vscode.DocumentLink[] {
    const range = siteRange(document.getText());
    if (!range) return [];
    const file = resolveSite(range.file, workspacePaths(), (p) => fs.existsSync(p));
    if (!file) return [];
    const link = new vscode.DocumentLink(
      new vscode.Range(range.line, range.start, range.line, range.end),
      vscode.Uri.file(file).with({ fragment: `L${range.fileLine}` }),
    );
    link.tooltip = `Open ${file}:${range.fileLine}`;
    return [link];
  }
}

class GraphPanel {
  private panel_: vscode.WebviewPanel | undefined;
  private heap_ = '';

  constructor(private readonly onInspect: (heap: string, address: string) => void) {}

  show(view: GraphView): void {
    if (!this.panel_) {
      this.panel_ = vscode.window.createWebviewPanel('heapleak.graph', view.title, vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [],
        retainContextWhenHidden: false,
      });
      this.panel_.onDidDispose(() => (this.panel_ = undefined));
      this.panel_.webview.onDidReceiveMessage((message: { type?: string; address?: string }) => {
        if (message?.type === 'inspect' && typeof message.address === 'string') this.onInspect(this.heap_, message.address);
      });
    }
    this.heap_ = view.heap;
    this.panel_.title = view.title;
    this.panel_.webview.html = buildGraphHtml(view, makeNonce(), this.panel_.webview.cspSource);
    this.panel_.reveal(undefined, false);
  }

  dispose(): void {
    this.panel_?.dispose();
  }
}

/** The dominator treemap's webview: one panel, redrawn per heap; zooms ask `model.expand`. */
class TreemapPanel {
  private panel_: vscode.WebviewPanel | undefined;
  private heap_ = '';

  constructor(
    private readonly media_: vscode.Uri,
    private readonly model_: TreemapModel,
    private readonly onInspect: (heap: string, address: string) => void,
    private readonly log_: (line: string) => void,
  ) {}

  show(view: TreemapView): void {
    if (!this.panel_) {
      this.panel_ = vscode.window.createWebviewPanel('heapleak.treemap', view.title, vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.joinPath(this.media_, 'dist')],
        retainContextWhenHidden: true,
      });
      this.panel_.onDidDispose(() => (this.panel_ = undefined));
      this.panel_.webview.onDidReceiveMessage((message: { type?: string; address?: string }) => void this.received(message));
    }
    this.heap_ = view.heap;
    this.panel_.title = view.title;
    const script = this.panel_.webview.asWebviewUri(vscode.Uri.joinPath(this.media_, 'dist', 'treemap.js')).toString();
    this.panel_.webview.html = buildTreemapHtml(view, makeNonce(), this.panel_.webview.cspSource, script);
    this.panel_.reveal(undefined, false);
  }

  private async received(message: { type?: string; address?: string }): Promise<void> {
    if (typeof message?.address !== 'string' || !/^0x[0-9a-fA-F]+$/.test(message.address)) return;
    if (message.type === 'inspect') this.onInspect(this.heap_, message.address);
    if (message.type !== 'expand') return;
    const heap = this.heap_;
    try {
      const data = await this.model_.expand(heap, message.address);
      if (heap === this.heap_) await this.panel_?.webview.postMessage({ type: 'subtree', data });
    } catch (error) {
      this.log_(`treemap: cannot expand ${message.address}: ${describeError(error)}`);
      await this.panel_?.webview.postMessage({ type: 'expandFailed', address: message.address });
      void vscode.window.showErrorMessage(`Heapleak: cannot open ${message.address} in the treemap: ${describeError(error)}`);
    }
  }

  dispose(): void {
    this.panel_?.dispose();
  }
}

class HeapTree implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed_ = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed_.event;

  constructor(private readonly model_: TreeModel) {}

  refresh(): void {
    this.changed_.fire(undefined);
  }

  getChildren(node?: TreeNode): Promise<TreeNode[]> {
    return this.model_.children(node);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return toTreeItem(this.model_.item(node));
  }

  getParent(node: TreeNode): Promise<TreeNode | undefined> {
    return this.model_.parent(node);
  }
}

/**
 * The Problems entries and squiggles of the leak rows' allocation sites, and
 * the CodeLens above each line ("show leak" reveals the row in the tree).
 */
class LeakMarkers implements vscode.CodeLensProvider {
  readonly collection = vscode.languages.createDiagnosticCollection('heapleak');
  private lenses_: LeakLens[] = [];
  private readonly changed_ = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed_.event;

  set(diagnostics: SiteDiagnostic[], lenses: LeakLens[]): void {
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const d of diagnostics) {
      const line = d.line - 1;
      const diagnostic = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), d.message, vscode.DiagnosticSeverity.Warning);
      diagnostic.source = 'heapleak';
      diagnostic.code = d.code;
      const list = byFile.get(d.file) ?? [];
      list.push(diagnostic);
      byFile.set(d.file, list);
    }
    this.collection.clear();
    for (const [file, list] of byFile) this.collection.set(vscode.Uri.file(file), list);
    this.lenses_ = lenses;
    this.changed_.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (document.uri.scheme !== 'file') return [];
    return this.lenses_
      .filter((lens) => lens.file === document.uri.fsPath && lens.line <= document.lineCount)
      .map((lens) => {
        const range = new vscode.Range(lens.line - 1, 0, lens.line - 1, 0);
        return new vscode.CodeLens(range, { title: lens.title, command: 'heapleak.revealLeak', arguments: [lens.heap, lens.leak] });
      });
  }

  dispose(): void {
    this.collection.dispose();
    this.changed_.dispose();
  }
}

function toTreeItem(view: ItemView): vscode.TreeItem {
  const state = {
    none: vscode.TreeItemCollapsibleState.None,
    collapsed: vscode.TreeItemCollapsibleState.Collapsed,
    expanded: vscode.TreeItemCollapsibleState.Expanded,
  }[view.collapsible];
  const item = new vscode.TreeItem(view.label, state);
  item.id = view.id;
  item.description = view.description;
  item.tooltip = view.tooltip;
  item.contextValue = view.contextValue;
  if (view.icon) item.iconPath = new vscode.ThemeIcon(view.icon);
  if (view.command) item.command = view.command;
  return item;
}

/** `Ui` (commands.ts) on VS Code's pickers, dialogs, notifications and editors. */
function vscodeUi(graphPanel: GraphPanel, documents: DocumentStore, log: (line: string) => void): Ui {
  return {
    async pick(items, options) {
      const chosen = await vscode.window.showQuickPick(
        items.map((item) => ({ label: item.label, description: item.description, detail: item.detail, item })),
        { title: options.title, placeHolder: options.placeHolder, ignoreFocusOut: true, matchOnDescription: true },
      );
      return chosen?.item.value;
    },
    async openFiles(options) {
      const uris = await vscode.window.showOpenDialog({
        title: options.title,
        canSelectMany: true,
        openLabel: 'Load',
        filters: { 'Heap dumps': ['json', 'jsonl', 'heap', 'gz'], 'All files': ['*'] },
      });
      return uris?.map((u) => u.fsPath);
    },
    input: (options) =>
      Promise.resolve(
        vscode.window.showInputBox({
          title: options.title,
          prompt: options.prompt,
          placeHolder: options.placeHolder,
          ignoreFocusOut: true,
          validateInput: options.validate,
        }),
      ),
    info: (message, ...actions) => Promise.resolve(vscode.window.showInformationMessage(message, ...actions)),
    warn: (message, ...actions) => Promise.resolve(vscode.window.showWarningMessage(message, ...actions)),
    error: (message, ...actions) => Promise.resolve(vscode.window.showErrorMessage(message, ...actions)),
    progress: (title, task) =>
      Promise.resolve(
        vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) =>
          task((p) => progress.report(p), token),
        ),
      ),
    async showGraph(view) {
      graphPanel.show(view);
    },
    async showObject(heap, address, text) {
      const uri = documents.set(objectDocumentPath(heap, address), text);
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.languages.setTextDocumentLanguage(document, 'jsonc');
      await vscode.window.showTextDocument(document, { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
    },
    async showText(title, text, language) {
      const uri = documents.set(documents.textUri(title, language === 'markdown' ? 'md' : 'json'), text);
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.languages.setTextDocumentLanguage(document, language);
      await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    },
    async openFile(file, line) {
      const position = new vscode.Position(Math.max(0, line - 1), 0);
      // Beside the editor being read; with none open, Beside would leave an empty group on the left.
      await vscode.window.showTextDocument(vscode.Uri.file(file), {
        selection: new vscode.Range(position, position),
        viewColumn: vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
      });
    },
    exists: (file) => fs.existsSync(file),
    workspaceFolders: workspacePaths,
    async findFiles(basename) {
      // The name is literal: glob characters in it match themselves only through `?`.
      const uris = await vscode.workspace.findFiles(`**/${basename.replace(/[*?[\]{}]/g, '?')}`, '**/node_modules/**', 200);
      return uris.filter((u) => u.scheme === 'file').map((u) => u.fsPath);
    },
    async setContext(key, value) {
      await vscode.commands.executeCommand('setContext', key, value);
    },
    async focusTree() {
      await vscode.commands.executeCommand(`${kViewId}.focus`);
    },
    async openSettings(query) {
      await vscode.commands.executeCommand('workbench.action.openSettings', query);
    },
    log,
  };
}

export function activate(context: vscode.ExtensionContext): { commands: Commands; client: () => HeapleakClient | undefined } {
  const output = vscode.window.createOutputChannel('Heapleak');
  const log = (line: string) => output.appendLine(line);
  const store = new HeapStore();
  const documents = new DocumentStore();
  let client: HeapleakClient | undefined;
  let commands: Commands;

  const traceLevel = () => vscode.workspace.getConfiguration('heapleak').get<TraceLevel>('trace.server', 'off');

  /** The client, or undefined after telling the user how to fix a missing daemon. */
  function daemon(): HeapleakClient | undefined {
    const config = vscode.workspace.getConfiguration('heapleak');
    const resolution = resolveDaemonPath({
      setting: config.get<string>('daemonPath', ''),
      workspaceFolders: workspacePaths(),
      envPath: process.env.PATH,
      homeDir: os.homedir(),
      isExecutable,
    });
    if (!resolution.found) {
      log(resolution.message);
      log(`looked at: ${resolution.tried.join(', ')}`);
      void vscode.window.showErrorMessage(`Heapleak: ${resolution.message}`, 'Open Settings', 'Show Output').then((action) => {
        if (action === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'heapleak.daemonPath');
        if (action === 'Show Output') output.show();
      });
      return undefined;
    }
    const options = {
      command: resolution.path,
      args: config.get<string[]>('daemonArgs', []),
      trace: traceLevel(),
    };
    if (!client) {
      client = new HeapleakClient({
        ...options,
        clientInfo: { name: 'heapleak-vscode', version: String(context.extension.packageJSON.version ?? '0') },
        onStderr: (text) => output.append(text),
        log,
      });
      client.onDidCrash((info) => {
        if (info.stderrTail) log(`last daemon stderr:\n${info.stderrTail}`);
        void commands.handleCrash(info);
      });
      client.onDidStart(() => void commands.probeOptional());
      context.subscriptions.push({ dispose: () => void client?.stop() });
    } else if (!client.running) {
      client.reconfigure(options);
    }
    return client;
  }

  const need = () => {
    const c = daemon();
    if (!c) throw new NoDaemon();
    return c;
  };
  const api = {
    loadHeap: (...a: Parameters<HeapleakClient['loadHeap']>) => need().loadHeap(...a),
    unloadHeap: (heap: string) => need().unloadHeap(heap),
    stats: (...a: Parameters<HeapleakClient['stats']>) => need().stats(...a),
    root: (...a: Parameters<HeapleakClient['root']>) => need().root(...a),
    pathToRoot: (...a: Parameters<HeapleakClient['pathToRoot']>) => need().pathToRoot(...a),
    object: (heap: string, address: string) => need().object(heap, address),
    referrers: (...a: Parameters<HeapleakClient['referrers']>) => need().referrers(...a),
    owner: (...a: Parameters<HeapleakClient['owner']>) => need().owner(...a),
    explain: (...a: Parameters<HeapleakClient['explain']>) => need().explain(...a),
    dominatorTree: (...a: Parameters<HeapleakClient['dominatorTree']>) => need().dominatorTree(...a),
    probe: (method: string) => need().probe(method),
  };

  const graphPanel = new GraphPanel((heap, address) => void commands.inspectObject({ heap, address }));
  context.subscriptions.push({ dispose: () => graphPanel.dispose() });
  const treemapModel = new TreemapModel(store, api, () => vscode.workspace.getConfiguration('heapleak').get<number>('treemap.limit', 40));
  const treemapPanel = new TreemapPanel(
    vscode.Uri.joinPath(context.extensionUri, 'media'),
    treemapModel,
    (heap, address) => void commands.inspectObject({ heap, address }),
    log,
  );
  context.subscriptions.push({ dispose: () => treemapPanel.dispose() });

  const ui = vscodeUi(graphPanel, documents, log);

  commands = new Commands(ui, api, store, readSettings);
  const model = new TreeModel(store, api, undefined, (file) => commands.resolveSite(file));
  const tree = new HeapTree(model);
  const treeView = vscode.window.createTreeView(kViewId, { treeDataProvider: tree, canSelectMany: true, showCollapseAll: true });
  const markers = new LeakMarkers();
  const leakDiagnostics = new LeakDiagnostics(store, (file) => commands.locateSite(file), (d, lenses) => markers.set(d, lenses));
  const storeSubscription = store.onDidChange(() => {
    tree.refresh();
    treeView.message = store.heaps.length >= 2 && store.diffs.length === 0 ? 'Next: Heapleak: Run Leak Diff' : undefined;
  });

  context.subscriptions.push(
    output,
    treeView,
    storeSubscription,
    leakDiagnostics,
    markers,
    vscode.languages.registerCodeLensProvider({ scheme: 'file' }, markers),
    vscode.workspace.registerTextDocumentContentProvider(kObjectScheme, documents),
    vscode.languages.registerDocumentLinkProvider({ scheme: kObjectScheme }, documents),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!client) return;
      if (event.affectsConfiguration('heapleak.pathMappings')) void leakDiagnostics.rebuild();
      if (event.affectsConfiguration('heapleak.trace.server')) client.reconfigure({ trace: traceLevel() });
      if (event.affectsConfiguration('heapleak.daemonPath') || event.affectsConfiguration('heapleak.daemonArgs')) {
        void vscode.window
          .showInformationMessage('Heapleak: the daemon settings changed. Restart heapleakd now? Loaded heaps are dropped.', 'Restart')
          .then((action) => (action ? vscode.commands.executeCommand('heapleak.restartDaemon') : undefined));
      }
    }),
  );
  const deps: CommandDeps = {
    commands,
    model,
    treeView,
    store,
    ui,
    treemapModel,
    showTreemap: (view) => treemapPanel.show(view),
    daemon,
    showOutput: () => output.show(),
  };
  for (const entry of commandTable(deps)) {
    context.subscriptions.push(vscode.commands.registerCommand(entry.id, entry.guarded === false ? entry.run : guarded(entry.run, log)));
  }
  void vscode.commands.executeCommand('setContext', 'heapleak.ownerAvailable', false);
  void vscode.commands.executeCommand('setContext', 'heapleak.explainAvailable', false);
  return { commands, client: () => client };
}

export function deactivate(): void {
  // context.subscriptions stop the daemon.
}
