/**
 * The JSON-RPC threads: worker threads that answer JSON-RPC over HTTP beside the main thread.
 *
 * Why: one JavaScript thread cannot answer requests as fast as a multi-threaded server on the
 * same cores; the kernel work of a request (read, write, wake-up) is the same either way, but a
 * second thread lets both cores serve. Each thread binds its own socket of the HTTP address
 * (`shared-listen.ts`), so connections are spread by the kernel and a thread never touches
 * another's sockets. A thread answers reads of the committed chain from its own `ChainReader`
 * over the same LMDB environment (which serves many threads), following the head the block
 * producer publishes; anything that needs the main thread's state (the pool, accounts, filters,
 * logs, the coinbase, the debug methods) is passed to the main thread's dispatcher.
 *
 * A thread that dies is started again after a pause that grows while it keeps dying; its
 * connections are lost with it, the others carry on.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import type { RpcDispatcher } from '../rpc/dispatcher.js';
import type { MainMessage, RpcThreadData, ThreadMessage } from './protocol.js';

export interface RpcThreadPoolOptions {
  count: number;
  /** The compiled thread entry (`rpc-thread.js`). */
  entry: URL;
  /** What every thread starts with, apart from its index. */
  data: Omit<RpcThreadData, 'index'>;
  /** The main thread's dispatcher, which answers the calls the threads pass on. */
  dispatcher: RpcDispatcher;
  logger: Logger;
}

/** Threads started when the configuration does not say: one per further core, up to this. */
export const DEFAULT_MAX_HTTP_THREADS = 3;

/**
 * How many JSON-RPC threads to start: the configured number (`--json-rpc.http-threads`), or one
 * per core beyond the first up to {@link DEFAULT_MAX_HTTP_THREADS}; none where sockets cannot
 * be shared between threads.
 */
export function httpThreadCount(
  configured: number | undefined,
  cores: number,
  sharedListening: boolean,
): number {
  if (!sharedListening) return 0;
  return configured ?? Math.max(0, Math.min(cores - 1, DEFAULT_MAX_HTTP_THREADS));
}

/** How long a thread has to close its connections before it is terminated. */
const CLOSE_TIMEOUT_MS = 5_000;
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A thread that ran this long before dying is restarted after the first delay again. */
const STABLE_RUN_MS = 60_000;

class RpcThread {
  private worker: Worker | undefined;
  private closing = false;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly index: number,
    private readonly options: RpcThreadPoolOptions,
  ) {}

  /** Starts the thread; resolves once it listens, rejects if it dies before. */
  start(): Promise<void> {
    const { logger } = this.options;
    const startedAt = Date.now();
    const worker = new Worker(this.options.entry, {
      workerData: { ...this.options.data, index: this.index } satisfies RpcThreadData,
    });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let listening = false;
      let failure: Error | undefined;
      worker.on('message', (message: ThreadMessage) => {
        if (message.type === 'call') {
          void this.options.dispatcher.answerForwarded(message.call).then((reply) => {
            worker.postMessage({ type: 'reply', id: message.id, reply } satisfies MainMessage);
          });
        } else if (message.type === 'listening') {
          listening = true;
          logger.info('JSON-RPC thread listening', { thread: this.index });
          resolve();
        }
      });
      worker.on('error', (error) => {
        failure = error;
      });
      worker.on('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        if (!listening) {
          reject(failure ?? new Error(`JSON-RPC thread ${this.index} exited with code ${code}`));
          return;
        }
        if (this.closing) return;
        logger.error('JSON-RPC thread stopped; starting it again', {
          thread: this.index,
          code,
          error: String(failure?.stack ?? failure ?? 'none'),
          inMs: this.restartDelayMs,
        });
        this.scheduleRestart(Date.now() - startedAt);
      });
    });
  }

  private scheduleRestart(ranMs: number): void {
    if (ranMs >= STABLE_RUN_MS) this.restartDelayMs = FIRST_RESTART_DELAY_MS;
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
    this.restartTimer = setTimeout(() => {
      this.start().catch((error: unknown) => {
        this.options.logger.error('JSON-RPC thread failed to start', {
          thread: this.index,
          error: String(error),
        });
        if (!this.closing) this.scheduleRestart(0);
      });
    }, delay);
  }

  /** Asks the thread to close its server and connections; terminates it if it takes too long. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (worker === undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      worker.on('message', (message: ThreadMessage) => {
        if (message.type === 'closed') resolve();
      });
      worker.once('exit', () => resolve());
      worker.postMessage({ type: 'close' } satisfies MainMessage);
      timer.unref();
    });
    await worker.terminate();
  }
}

export class RpcThreadPool {
  private constructor(private readonly threads: readonly RpcThread[]) {}

  /**
   * Starts `count` threads and resolves once all of them listen. If one fails to start, the
   * others are closed and the error is thrown.
   */
  static async start(options: RpcThreadPoolOptions): Promise<RpcThreadPool> {
    const threads = Array.from({ length: options.count }, (_, i) => new RpcThread(i + 1, options));
    const started = await Promise.allSettled(threads.map((thread) => thread.start()));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(threads.map((thread) => thread.close()));
      throw failed.reason;
    }
    return new RpcThreadPool(threads);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.close()));
  }
}
