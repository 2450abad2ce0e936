// A scripted `Ui` for the command tests: answers pickers from a queue,
// records messages, progress, graphs and documents.
import type { CancellationToken } from 'vscode-jsonrpc';
import { CancellationTokenSource } from 'vscode-jsonrpc';
import { PickItem, ProgressReport, Ui } from '../../src/commands';
import { GraphView } from '../../src/graph';

export class FakeUi implements Ui {
  picks: ((items: PickItem<unknown>[], title: string) => unknown)[] = [];
  pickTitles: string[] = [];
  pickLabels: string[][] = [];
  files: string[] | undefined;
  inputs: (string | undefined)[] = [];
  messages: { level: string; message: string; actions: string[] }[] = [];
  actions: (string | undefined)[] = [];
  progresses: { title: string; reports: ProgressReport[]; source: CancellationTokenSource }[] = [];
  onProgress: (index: number, source: CancellationTokenSource) => void = () => undefined;
  graphs: GraphView[] = [];
  objects: { heap: string; address: string; text: string }[] = [];
  texts: { title: string; text: string; language: string }[] = [];
  opened: { file: string; line: number }[] = [];
  contexts = new Map<string, unknown>();
  existing = new Set<string>();
  folders: string[] = ['/ws'];
  logs: string[] = [];
  focused = 0;

  async pick<T>(items: PickItem<T>[], options: { title: string }): Promise<T | undefined> {
    this.pickTitles.push(options.title);
    this.pickLabels.push(items.map((i) => i.label));
    const answer = this.picks.shift();
    if (!answer) return items[0]?.value;
    return answer(items as PickItem<unknown>[], options.title) as T | undefined;
  }
  async openFiles(): Promise<string[] | undefined> {
    return this.files;
  }
  async input(options: { validate?: (v: string) => string | undefined }): Promise<string | undefined> {
    const value = this.inputs.shift();
    if (value !== undefined && options.validate?.(value)) throw new Error(`invalid input ${value}`);
    return value;
  }
  private message(level: string, message: string, actions: string[]): Promise<string | undefined> {
    this.messages.push({ level, message, actions });
    return Promise.resolve(this.actions.shift());
  }
  info(message: string, ...actions: string[]) {
    return this.message('info', message, actions);
  }
  warn(message: string, ...actions: string[]) {
    return this.message('warn', message, actions);
  }
  error(message: string, ...actions: string[]) {
    return this.message('error', message, actions);
  }
  async progress<R>(title: string, task: (report: (p: ProgressReport) => void, token: CancellationToken) => Promise<R>): Promise<R> {
    const record = { title, reports: [] as ProgressReport[], source: new CancellationTokenSource() };
    this.progresses.push(record);
    this.onProgress(this.progresses.length - 1, record.source);
    return task((p) => record.reports.push(p), record.source.token);
  }
  async showGraph(view: GraphView) {
    this.graphs.push(view);
  }
  async showObject(heap: string, address: string, text: string) {
    this.objects.push({ heap, address, text });
  }
  async showText(title: string, text: string, language: string) {
    this.texts.push({ title, text, language });
  }
  async openFile(file: string, line: number) {
    this.opened.push({ file, line });
  }
  exists(file: string) {
    return this.existing.has(file);
  }
  workspaceFolders() {
    return this.folders;
  }
  /** Workspace files by absolute path, for findFiles. */
  workspaceFiles: string[] = [];
  async findFiles(basename: string) {
    return this.workspaceFiles.filter((f) => f.split('/').at(-1) === basename);
  }
  async setContext(key: string, value: unknown) {
    this.contexts.set(key, value);
  }
  async focusTree() {
    this.focused++;
  }
  async openSettings() {}
  log(line: string) {
    this.logs.push(line);
  }
  errors(): string[] {
    return this.messages.filter((m) => m.level === 'error').map((m) => m.message);
  }
}
