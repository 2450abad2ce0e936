// A small stand-in for the `vscode` module: the part of the API extension.ts
// uses, recording what the extension shows and answering prompts from the
// test's script. `installVscodeStub()` makes `require('vscode')` return it.
/* eslint-disable @typescript-eslint/no-explicit-any */

import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';

type Listener<T> = (value: T) => unknown;

export class EventEmitter<T> {
  private listeners_: Listener<T>[] = [];
  event = (listener: Listener<T>) => {
    this.listeners_.push(listener);
    return { dispose: () => (this.listeners_ = this.listeners_.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners_]) listener(value);
  }
  dispose(): void {
    this.listeners_ = [];
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly fragment = '',
  ) {}
  static file(file: string): Uri {
    return new Uri('file', path.resolve(file));
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, path.join(base.path, ...parts));
  }
  static from(parts: { scheme: string; path: string }): Uri {
    return new Uri(parts.scheme, parts.path);
  }
  static parse(text: string): Uri {
    const match = /^([a-z-]+):(.*)$/.exec(text);
    return match ? new Uri(match[1], match[2]) : new Uri('file', text);
  }
  get fsPath(): string {
    return this.path;
  }
  with(change: { fragment?: string }): Uri {
    return new Uri(this.scheme, this.path, change.fragment ?? this.fragment);
  }
  toString(): string {
    return `${this.scheme}:${this.path}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    if (typeof a === 'number') {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string;
  contextValue?: string;
  iconPath?: unknown;
  command?: { command: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: number,
  ) {}
}

export class DocumentLink {
  tooltip?: string;
  constructor(
    readonly range: Range,
    readonly target: Uri,
  ) {}
}

export const DiagnosticSeverity = { Error: 0, Warning: 1, Information: 2, Hint: 3 };

export class Diagnostic {
  source?: string;
  code?: string | number;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: number,
  ) {}
}

export class CodeLens {
  constructor(
    readonly range: Range,
    readonly command?: { title: string; command: string; arguments?: unknown[] },
  ) {}
}

export const TreeItemCollapsibleState = { None: 0, Collapsed: 1, Expanded: 2 };
export const ViewColumn = { Active: -1, Beside: -2, One: 1 };
export const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 };

export class CancellationTokenSource {
  private emitter_ = new EventEmitter<void>();
  token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter_.event,
  };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.emitter_.fire();
  }
}

export interface FakePanel {
  viewType: string;
  title: string;
  webview: {
    html: string;
    cspSource: string;
    options: unknown;
    onDidReceiveMessage: unknown;
    postMessageFromPage(message: unknown): void;
    posted: unknown[];
    postMessage(message: unknown): Promise<boolean>;
    asWebviewUri(uri: Uri): Uri;
  };
  disposed: boolean;
}

export interface ProgressRecord {
  title: string;
  reports: { message?: string; increment?: number }[];
  source: CancellationTokenSource;
  done: boolean;
}

/** What the test controls and inspects. Reset with `resetState()`. */
export const state = {
  messages: [] as { level: 'info' | 'warn' | 'error'; message: string; actions: string[] }[],
  /** Chooses a quick pick item; default: the first. */
  quickPick: (items: any[], _options: any): any => items[0],
  quickPicks: [] as { title?: string; labels: string[] }[],
  openDialog: (): Uri[] | undefined => undefined,
  inputBox: (_options: any): string | undefined => undefined,
  /** Chooses a message action; default: none (the toast is dismissed). */
  messageAction: (_message: string, _actions: string[]): string | undefined => undefined,
  progress: [] as ProgressRecord[],
  /** Called when a progress notification starts, e.g. to cancel it. */
  onProgress: (_record: ProgressRecord) => undefined as unknown,
  panels: [] as FakePanel[],
  shownDocuments: [] as { uri: string; text: string; language?: string; selectionLine?: number }[],
  contexts: new Map<string, unknown>(),
  config: new Map<string, unknown>(),
  commands: new Map<string, (...args: any[]) => any>(),
  executed: [] as { command: string; args: unknown[] }[],
  treeViews: new Map<string, any>(),
  contentProviders: new Map<string, any>(),
  linkProviders: [] as { selector: any; provider: any }[],
  workspaceFolders: [] as { uri: Uri; name: string; index: number }[],
  outputs: new Map<string, string[]>(),
  configListeners: new EventEmitter<{ affectsConfiguration(key: string): boolean }>(),
  /** The diagnostic collections' current entries, by collection name, then file path. */
  diagnostics: new Map<string, Map<string, Diagnostic[]>>(),
  codeLensProviders: [] as { selector: any; provider: any }[],
  revealed: [] as { view: string; node: any; options: unknown }[],
};

export function resetState(): void {
  state.messages = [];
  state.quickPick = (items) => items[0];
  state.quickPicks = [];
  state.openDialog = () => undefined;
  state.inputBox = () => undefined;
  state.messageAction = () => undefined;
  state.progress = [];
  state.onProgress = () => undefined;
  state.panels = [];
  state.shownDocuments = [];
  state.contexts = new Map();
  state.config = new Map();
  state.commands = new Map();
  state.executed = [];
  state.treeViews = new Map();
  state.contentProviders = new Map();
  state.linkProviders = [];
  state.workspaceFolders = [];
  state.outputs = new Map();
  state.configListeners = new EventEmitter();
  state.diagnostics = new Map();
  state.codeLensProviders = [];
  state.revealed = [];
}

function message(level: 'info' | 'warn' | 'error') {
  return (text: string, ...actions: string[]) => {
    state.messages.push({ level, message: text, actions });
    return Promise.resolve(state.messageAction(text, actions));
  };
}

class TextDocument {
  constructor(
    readonly uri: Uri,
    private text_: string,
    public languageId = 'plaintext',
  ) {}
  getText(): string {
    return this.text_;
  }
  get lineCount(): number {
    return this.text_.split('\n').length;
  }
}

export const window = {
  createOutputChannel(name: string) {
    const lines: string[] = [];
    state.outputs.set(name, lines);
    return {
      name,
      append: (text: string) => lines.push(text),
      appendLine: (text: string) => lines.push(`${text}\n`),
      show: () => undefined,
      dispose: () => undefined,
    };
  },
  createTreeView(id: string, options: { treeDataProvider: any; canSelectMany?: boolean }) {
    const view = {
      id,
      provider: options.treeDataProvider,
      selection: [] as any[],
      message: undefined as string | undefined,
      dispose: () => undefined,
      // As VS Code does: walk up with getParent (the provider must have it) before showing the node.
      async reveal(node: any, revealOptions?: unknown) {
        let parent = await options.treeDataProvider.getParent(node);
        while (parent) parent = await options.treeDataProvider.getParent(parent);
        state.revealed.push({ view: id, node, options: revealOptions });
      },
    };
    state.treeViews.set(id, view);
    return view;
  },
  async showQuickPick(items: any[], options: any) {
    state.quickPicks.push({ title: options?.title, labels: items.map((i) => i.label) });
    return state.quickPick(items, options);
  },
  async showOpenDialog() {
    return state.openDialog();
  },
  async showInputBox(options: any) {
    return state.inputBox(options);
  },
  showInformationMessage: message('info'),
  showWarningMessage: message('warn'),
  showErrorMessage: message('error'),
  async withProgress(options: { title: string }, task: (progress: any, token: any) => Promise<unknown>) {
    const record: ProgressRecord = { title: options.title, reports: [], source: new CancellationTokenSource(), done: false };
    state.progress.push(record);
    state.onProgress(record);
    try {
      return await task({ report: (r: any) => record.reports.push(r) }, record.source.token);
    } finally {
      record.done = true;
    }
  },
  createWebviewPanel(viewType: string, title: string, _column: unknown, options: unknown) {
    const received = new EventEmitter<unknown>();
    const disposed = new EventEmitter<void>();
    const panel: FakePanel & Record<string, any> = {
      viewType,
      title,
      disposed: false,
      webview: {
        html: '',
        cspSource: 'vscode-webview://stub',
        options,
        onDidReceiveMessage: received.event,
        postMessageFromPage: (m: unknown) => received.fire(m),
        /** What the extension posted to the page. */
        posted: [] as unknown[],
        postMessage(m: unknown) {
          this.posted.push(m);
          return Promise.resolve(true);
        },
        asWebviewUri: (uri: Uri) => Uri.from({ scheme: 'https', path: `/webview${uri.path}` }),
      },
      onDidDispose: disposed.event,
      reveal: () => undefined,
      dispose: () => {
        panel.disposed = true;
        disposed.fire();
      },
    };
    state.panels.push(panel);
    return panel;
  },
  async showTextDocument(target: any, options?: any) {
    const isDoc = target instanceof TextDocument;
    state.shownDocuments.push({
      uri: isDoc ? target.uri.toString() : target.toString(),
      text: isDoc ? target.getText() : '',
      language: isDoc ? target.languageId : undefined,
      selectionLine: options?.selection?.start?.line,
    });
    return {};
  },
};

export const commands = {
  registerCommand(id: string, run: (...args: any[]) => any) {
    state.commands.set(id, run);
    return { dispose: () => state.commands.delete(id) };
  },
  async executeCommand(id: string, ...args: unknown[]) {
    state.executed.push({ command: id, args });
    if (id === 'setContext') {
      state.contexts.set(args[0] as string, args[1]);
      return undefined;
    }
    const run = state.commands.get(id);
    return run ? run(...args) : undefined;
  },
};

export const workspace = {
  get workspaceFolders() {
    return state.workspaceFolders;
  },
  /** Only the `**\/NAME` globs the extension asks for: files named NAME under the workspace folders. */
  async findFiles(include: string) {
    const name = include.replace(/^\*\*\//, '');
    const found: Uri[] = [];
    for (const folder of state.workspaceFolders) {
      for (const entry of fs.readdirSync(folder.uri.fsPath, { recursive: true, withFileTypes: true })) {
        if (entry.isFile() && entry.name === name) found.push(Uri.file(path.join(entry.parentPath ?? (entry as { path?: string }).path ?? '', entry.name)));
      }
    }
    return found;
  },
  getConfiguration(section: string) {
    return {
      get<T>(key: string, fallback: T): T {
        const full = `${section}.${key}`;
        return state.config.has(full) ? (state.config.get(full) as T) : fallback;
      },
    };
  },
  onDidChangeConfiguration: (listener: any) => state.configListeners.event(listener),
  registerTextDocumentContentProvider(scheme: string, provider: any) {
    state.contentProviders.set(scheme, provider);
    return { dispose: () => state.contentProviders.delete(scheme) };
  },
  async openTextDocument(uri: Uri) {
    const provider = state.contentProviders.get(uri.scheme);
    return new TextDocument(uri, provider ? provider.provideTextDocumentContent(uri) : '');
  },
};

export const languages = {
  async setTextDocumentLanguage(document: TextDocument, language: string) {
    document.languageId = language;
    return document;
  },
  registerDocumentLinkProvider(selector: unknown, provider: unknown) {
    state.linkProviders.push({ selector, provider });
    return { dispose: () => undefined };
  },
  registerCodeLensProvider(selector: unknown, provider: unknown) {
    state.codeLensProviders.push({ selector, provider });
    return { dispose: () => undefined };
  },
  createDiagnosticCollection(name: string) {
    const files = new Map<string, Diagnostic[]>();
    state.diagnostics.set(name, files);
    return {
      name,
      set: (uri: Uri, list: Diagnostic[]) => files.set(uri.fsPath, list),
      clear: () => files.clear(),
      dispose: () => files.clear(),
    };
  },
};

export function makeDocument(uri: Uri, text: string): TextDocument {
  return new TextDocument(uri, text);
}

const stub = {
  EventEmitter,
  Uri,
  Position,
  Range,
  ThemeIcon,
  TreeItem,
  DocumentLink,
  Diagnostic,
  DiagnosticSeverity,
  CodeLens,
  TreeItemCollapsibleState,
  ViewColumn,
  ProgressLocation,
  CancellationTokenSource,
  window,
  commands,
  workspace,
  languages,
};

let installed = false;

/** Makes `require('vscode')` resolve to this stand-in in this process. */
export function installVscodeStub(): typeof stub {
  if (installed) return stub;
  installed = true;
  const loader = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
  const original = loader._load;
  loader._load = function (request: string, parent: unknown, isMain: boolean) {
    if (request === 'vscode') return stub;
    return original.call(this, request, parent, isMain);
  };
  return stub;
}

export function fakeContext(): any {
  return {
    subscriptions: [] as { dispose(): unknown }[],
    extension: { packageJSON: { version: '0.0.0-test' } },
    extensionUri: Uri.file(path.resolve(__dirname, '../../..')),
  };
}
