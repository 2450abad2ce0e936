// The heapleakd client: spawns `heapleakd --stdio`, speaks JSON-RPC over it
// with vscode-jsonrpc, restarts it after a crash, and exposes one typed method
// per request the extension sends. Plain Node: it must not import `vscode`
// (the integration tests drive it against the real daemon without VS Code).

import { ChildProcess, spawn } from 'node:child_process';
import {
  CancellationToken,
  Disposable,
  Emitter,
  Event,
  Message,
  MessageConnection,
  MessageWriter,
  ProgressType,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  Trace,
  createMessageConnection,
} from 'vscode-jsonrpc/node';
import {
  ErrorCodes,
  DominatorTreeParams,
  DominatorTreeResult,
  ExplainParams,
  HeapSummary,
  InitializeResult,
  ListHeapsResult,
  LoadHeapParams,
  Methods,
  ObjectResult,
  ProgressValue,
  RelatedParams,
  RelatedResult,
  RootParams,
  RootPathResult,
  RootResult,
  StatsParams,
  StatsResult,
} from './protocol';

export type TraceLevel = 'off' | 'messages' | 'verbose';

export interface ClientOptions {
  command: string;
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  clientInfo?: { name: string; version: string };
  /** Called with each chunk the daemon writes to stderr. */
  onStderr?: (text: string) => void;
  /** Where traces and lifecycle notes go (the output channel). */
  log?: (line: string) => void;
  trace?: TraceLevel;
  /** Restart after a crash at most this many times in `restartWindowMs`. */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** How long `stop()` waits for `exit` before killing. */
  stopTimeoutMs?: number;
}

export interface CrashInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether a new daemon is being started. */
  restarting: boolean;
  /** Last stderr lines of the dead process, for the error message. */
  stderrTail: string;
}

export interface ProgressSink {
  (value: ProgressValue): void;
}

const progressType = new ProgressType<ProgressValue>();
let tokenCounter = 0;

/**
 * A writer whose write() never rejects. vscode-jsonrpc 8 rethrows a failed
 * request write from inside a Promise executor, which surfaces as an
 * unhandled rejection; a failed write only happens when the daemon is dead or
 * dying, so: swallow it, make sure the process is gone, and let the exit
 * handler reject what is pending (connection.dispose()).
 */
class DeadSafeWriter implements MessageWriter {
  readonly onError: MessageWriter['onError'];
  readonly onClose: MessageWriter['onClose'];

  constructor(
    private readonly inner_: MessageWriter,
    private readonly onBroken_: () => void,
  ) {
    this.onError = inner_.onError;
    this.onClose = inner_.onClose;
  }

  async write(message: Message): Promise<void> {
    try {
      await this.inner_.write(message);
    } catch {
      this.onBroken_();
    }
  }

  end(): void {
    this.inner_.end();
  }

  dispose(): void {
    this.inner_.dispose();
  }
}

/** One process lifetime: a child and the connection over its pipes. */
class DaemonProcess {
  readonly child: ChildProcess;
  readonly connection: MessageConnection;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stopping = false;
  stderrTail = '';

  constructor(options: ClientOptions) {
    this.child = spawn(options.command, [...(options.args ?? []), '--stdio'], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
      // spawn failures (ENOENT, EACCES) fire 'error' and never 'exit'.
      this.child.once('error', () => resolve({ code: null, signal: null }));
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-4000);
      options.onStderr?.(text);
    });
    this.connection = createMessageConnection(
      new StreamMessageReader(this.child.stdout!),
      new DeadSafeWriter(new StreamMessageWriter(this.child.stdin!), () => {
        if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
      }),
    );
    // A write after the daemon died must not throw out of a stream callback.
    this.child.stdin!.on('error', () => undefined);
    if (options.trace && options.trace !== 'off' && options.log) {
      const log = options.log;
      void this.connection.trace(Trace.fromString(options.trace), {
        log: (message: string, data?: string) => log(data ? `${message}\n${data}` : message),
      });
    }
    this.connection.listen();
  }
}

export class DaemonNotRunningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DaemonNotRunningError';
  }
}

export class HeapleakClient implements Disposable {
  private process_: DaemonProcess | undefined;
  private starting_: Promise<InitializeResult> | undefined;
  private initializeResult_: InitializeResult | undefined;
  private crashTimes_: number[] = [];
  private disposed_ = false;
  private readonly crashEmitter_ = new Emitter<CrashInfo>();
  private readonly startEmitter_ = new Emitter<InitializeResult>();

  /** Fires when the daemon exits without being asked to. */
  readonly onDidCrash: Event<CrashInfo> = this.crashEmitter_.event;
  /** Fires after every successful initialize, the first start included. */
  readonly onDidStart: Event<InitializeResult> = this.startEmitter_.event;

  constructor(private options_: ClientOptions) {}

  get running(): boolean {
    return this.process_ !== undefined && this.initializeResult_ !== undefined;
  }

  get pid(): number | undefined {
    return this.process_?.child.pid;
  }

  get serverInfo(): InitializeResult | undefined {
    return this.initializeResult_;
  }

  /** Changes the options for the next start (daemon path, trace level). */
  reconfigure(options: Partial<ClientOptions>): void {
    this.options_ = { ...this.options_, ...options };
  }

  /** Starts the daemon unless it runs; concurrent callers share one start. */
  start(): Promise<InitializeResult> {
    if (this.disposed_) return Promise.reject(new DaemonNotRunningError('The heapleak client was disposed.'));
    if (this.initializeResult_ && this.process_) return Promise.resolve(this.initializeResult_);
    if (!this.starting_) {
      this.starting_ = this.startProcess().finally(() => {
        this.starting_ = undefined;
      });
    }
    return this.starting_;
  }

  private async startProcess(): Promise<InitializeResult> {
    const proc = new DaemonProcess(this.options_);
    this.process_ = proc;
    this.initializeResult_ = undefined;
    const spawnError = new Promise<never>((_, reject) => {
      proc.child.once('error', (error: NodeJS.ErrnoException) => {
        reject(new DaemonNotRunningError(`Cannot start ${this.options_.command}: ${error.message}`));
      });
    });
    void proc.exited.then((status) => this.handleExit(proc, status));
    const earlyExit = proc.exited.then((status) => {
      throw new DaemonNotRunningError(
        `${this.options_.command} exited during initialize (code ${status.code}, signal ${status.signal})` +
          (proc.stderrTail ? `:\n${proc.stderrTail.trim()}` : ''),
      );
    });
    // Whichever loses the race below must not surface as an unhandled rejection.
    spawnError.catch(() => undefined);
    earlyExit.catch(() => undefined);
    // A spawn that failed (ENOENT, EACCES) has no pid: writing to it would throw later.
    if (proc.child.pid === undefined) await spawnError;
    const init = proc.connection.sendRequest<InitializeResult>(Methods.initialize, {
      processId: process.pid,
      clientInfo: this.options_.clientInfo ?? { name: 'heapleak-vscode', version: '0.1.0' },
      capabilities: { window: { workDoneProgress: true } },
    });
    const result = await Promise.race([init, spawnError, earlyExit]);
    await proc.connection.sendNotification(Methods.initialized, {});
    if (this.process_ !== proc) throw new DaemonNotRunningError('The daemon was stopped while starting.');
    this.initializeResult_ = result;
    this.options_.log?.(
      `heapleakd ${result.serverInfo?.version ?? '?'} started (pid ${proc.child.pid}): ${this.options_.command}`,
    );
    this.startEmitter_.fire(result);
    return result;
  }

  private handleExit(proc: DaemonProcess, status: { code: number | null; signal: NodeJS.Signals | null }): void {
    proc.connection.dispose(); // rejects whatever was still pending on this process
    if (this.process_ !== proc) return;
    this.process_ = undefined;
    const wasRunning = this.initializeResult_ !== undefined;
    this.initializeResult_ = undefined;
    if (proc.stopping || this.disposed_) return;
    this.options_.log?.(`heapleakd exited unexpectedly (code ${status.code}, signal ${status.signal})`);
    if (!wasRunning) return; // a failed start is reported by start() itself
    const now = Date.now();
    const window = this.options_.restartWindowMs ?? 3 * 60_000;
    this.crashTimes_ = this.crashTimes_.filter((t) => now - t < window);
    this.crashTimes_.push(now);
    const restarting = this.crashTimes_.length <= (this.options_.maxRestarts ?? 4);
    this.crashEmitter_.fire({ code: status.code, signal: status.signal, restarting, stderrTail: proc.stderrTail });
    if (restarting) {
      this.start().catch((error) => this.options_.log?.(`restart failed: ${String(error)}`));
    }
  }

  /** Sends a request, starting the daemon first when needed. */
  async request<R>(method: string, params: object, token?: CancellationToken): Promise<R> {
    await this.start();
    const proc = this.process_;
    if (!proc) throw new DaemonNotRunningError('heapleakd is not running.');
    return token ? proc.connection.sendRequest<R>(method, params, token) : proc.connection.sendRequest<R>(method, params);
  }

  /**
   * Whether the daemon knows `method`: the `capabilities.methods` list from
   * initialize when there is one, else anything but -32601 to an empty request.
   */
  async probe(method: string): Promise<boolean> {
    const init = await this.start();
    const methods = (init.capabilities as { methods?: unknown }).methods;
    if (Array.isArray(methods)) return methods.includes(method);
    try {
      await this.request(method, {});
      return true;
    } catch (error) {
      if (error instanceof ResponseError) return error.code !== ErrorCodes.methodNotFound;
      throw error;
    }
  }

  /**
   * loadHeap with a fresh workDoneToken: `onProgress` sees begin/report/end
   * as the daemon sends them; cancelling `token` sends $/cancelRequest and
   * the promise rejects with code -32800.
   */
  async loadHeap(params: LoadHeapParams, onProgress?: ProgressSink, token?: CancellationToken): Promise<HeapSummary> {
    await this.start();
    const proc = this.process_;
    if (!proc) throw new DaemonNotRunningError('heapleakd is not running.');
    const workDoneToken = `heapleak-load-${process.pid}-${++tokenCounter}`;
    const subscription = onProgress ? proc.connection.onProgress(progressType, workDoneToken, onProgress) : undefined;
    try {
      const request = { ...params, workDoneToken };
      return token
        ? await proc.connection.sendRequest<HeapSummary>(Methods.loadHeap, request, token)
        : await proc.connection.sendRequest<HeapSummary>(Methods.loadHeap, request);
    } finally {
      subscription?.dispose();
    }
  }

  unloadHeap(heap: string): Promise<{ heap: string; unloaded: boolean }> {
    return this.request(Methods.unloadHeap, { heap });
  }

  listHeaps(): Promise<ListHeapsResult> {
    return this.request(Methods.listHeaps, {});
  }

  stats(params: StatsParams, token?: CancellationToken): Promise<StatsResult> {
    return this.request(Methods.stats, params, token);
  }

  root(params: RootParams, token?: CancellationToken): Promise<RootResult> {
    return this.request(Methods.root, params, token);
  }

  pathToRoot(heap: string, address: string, token?: CancellationToken): Promise<RootPathResult> {
    return this.request(Methods.pathToRoot, { heap, address }, token);
  }

  object(heap: string, address: string): Promise<ObjectResult> {
    return this.request(Methods.object, { heap, address });
  }

  referrers(params: RelatedParams): Promise<RelatedResult> {
    return this.request(Methods.referrers, params);
  }

  references(params: RelatedParams): Promise<RelatedResult> {
    return this.request(Methods.references, params);
  }

  owner(heap: string, addresses: string[], token?: CancellationToken): Promise<Record<string, unknown>> {
    return this.request(Methods.owner, { heap, addresses }, token);
  }

  explain(params: ExplainParams, token?: CancellationToken): Promise<Record<string, unknown>> {
    return this.request(Methods.explain, params, token);
  }

  dominatorTree(params: DominatorTreeParams, token?: CancellationToken): Promise<DominatorTreeResult> {
    return this.request(Methods.dominatorTree, params, token);
  }

  /** shutdown + exit; kills the process when it does not exit in time. */
  async stop(): Promise<void> {
    const proc = this.process_;
    if (!proc) return;
    proc.stopping = true;
    const timeout = this.options_.stopTimeoutMs ?? 2000;
    try {
      await withTimeout(proc.connection.sendRequest(Methods.shutdown, null), timeout);
      await proc.connection.sendNotification(Methods.exit);
    } catch {
      // A dead or hung daemon: the kill below handles it.
    }
    const exited = await withTimeout(proc.exited, timeout).catch(() => undefined);
    if (!exited) proc.child.kill('SIGKILL');
    await proc.exited;
    if (this.process_ === proc) {
      this.process_ = undefined;
      this.initializeResult_ = undefined;
    }
  }

  /** Stops and starts again (a new process, no heaps loaded). */
  async restart(): Promise<InitializeResult> {
    await this.stop();
    this.crashTimes_ = [];
    return this.start();
  }

  dispose(): void {
    void this.stop().finally(() => {
      this.disposed_ = true;
    });
    this.crashEmitter_.dispose();
    this.startEmitter_.dispose();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
