/**
 * The call threads: worker threads that run the EVM for `eth_call` and `eth_estimateGas`.
 *
 * Why: a call is CPU work of a fraction of a millisecond to seconds, and JavaScript runs one
 * thing at a time per thread. On the main thread a long call held up every other request, and
 * calls could use one core at most. Everything else stays on the main thread: connections,
 * cheap reads and the rest are best served by one event loop (measured against splitting the
 * connections over several threads, docs/benchmarks.md), and the pool, filters and accounts
 * live there. Each call thread reads the chain through a `ChainReader` of its own over the same
 * LMDB environment, following the head the block producer publishes; the main thread picks the
 * block a call runs at, and answers repeated calls from the outcomes it keeps, so a call thread
 * runs only what has to run.
 *
 * The threads also serve the main thread's sender recovery (each lends it a port), so a daemon
 * with call threads needs no recovery worker besides.
 *
 * Jobs go to the ready thread with the fewest in hand; while none is ready they run on the main
 * thread. A thread that dies is started again after a pause that grows while it keeps dying; its
 * jobs in hand fail with an internal error rather than being run again where they could do the
 * same to the main thread.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { CallOutcome, CallRequest } from '../chain/call.js';
import type { CallExecution } from '../chain/chain-reader.js';
import type { Logger } from '../logger.js';
import {
  errorOf,
  requestData,
  type CallThreadData,
  type JobKind,
  type MainMessage,
  type ThreadMessage,
} from './protocol.js';

export interface CallThreadPoolOptions {
  count: number;
  /** The compiled thread entry (`call-thread.js`). */
  entry: URL;
  /** What every thread starts with, apart from its index and recovery port. */
  data: Omit<CallThreadData, 'index' | 'recoveryPort'>;
  /** Runs jobs on the main thread while no call thread is ready. */
  local: CallExecution;
  /** Lent a port to every thread that starts, which serves sender recovery on it. */
  recovery?: { lend(port: MessagePort): void };
  logger: Logger;
}

/** Threads started when the configuration does not say: one per further core, up to this. */
export const DEFAULT_MAX_EVM_THREADS = 3;

/** How many call threads to start: the configured number, or one per core beyond the first. */
export function evmThreadCount(configured: number | undefined, cores: number): number {
  return configured ?? Math.max(0, Math.min(cores - 1, DEFAULT_MAX_EVM_THREADS));
}

/**
 * Young generation of a thread's heap, in MiB (V8's default is 48): the EVM allocates at a high
 * rate, but little of it survives a collection.
 */
const THREAD_YOUNG_GENERATION_MB = 8;
/** How long a thread has to finish its jobs and close before it is terminated. */
const CLOSE_TIMEOUT_MS = 5_000;
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A thread that ran this long before dying is restarted after the first delay again. */
const STABLE_RUN_MS = 60_000;

interface PendingJob {
  resolve(value: CallOutcome | bigint): void;
  reject(error: Error): void;
}

class CallThread {
  private worker: Worker | undefined;
  ready = false;
  readonly pending = new Map<number, PendingJob>();
  private closing = false;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly index: number,
    private readonly options: CallThreadPoolOptions,
  ) {}

  /** Starts the thread; resolves once it is ready or has failed to start (logged). */
  start(): Promise<void> {
    const { logger } = this.options;
    const startedAt = Date.now();
    const channel = this.options.recovery === undefined ? undefined : new MessageChannel();
    const recoveryPort = channel?.port2;
    const worker = new Worker(this.options.entry, {
      workerData: {
        ...this.options.data,
        index: this.index,
        recoveryPort,
      } satisfies CallThreadData,
      transferList: recoveryPort === undefined ? [] : [recoveryPort],
      resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
    });
    this.worker = worker;
    return new Promise<void>((settle) => {
      let failure: Error | undefined;
      worker.on('message', (message: ThreadMessage) => this.received(message, settle, channel));
      worker.on('error', (error) => (failure = error));
      worker.on('exit', (code) => {
        const wasReady = this.ready;
        this.ready = false;
        if (this.worker === worker) this.worker = undefined;
        channel?.port1.close();
        for (const job of this.pending.values()) {
          job.reject(new Error(`call thread ${this.index} stopped while running the call`));
        }
        this.pending.clear();
        settle();
        if (this.closing) return;
        logger.error(
          wasReady ? 'call thread stopped; starting it again' : 'call thread failed to start',
          {
            thread: this.index,
            code,
            error: String(failure?.stack ?? failure ?? 'none'),
            inMs: this.restartDelayMs,
          },
        );
        this.scheduleRestart(wasReady ? Date.now() - startedAt : 0);
      });
    });
  }

  run(id: number, kind: JobKind, request: CallRequest, blockNumber: bigint): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker!.postMessage({
        type: 'job',
        id,
        kind,
        request: requestData(request),
        blockNumber,
      } satisfies MainMessage);
    });
  }

  private received(
    message: ThreadMessage,
    settle: () => void,
    channel: MessageChannel | undefined,
  ): void {
    if (message.type === 'ready') {
      this.ready = true;
      if (channel !== undefined) this.options.recovery?.lend(channel.port1);
      this.options.logger.info('call thread ready', { thread: this.index });
      settle();
      return;
    }
    if (message.type === 'closed') return;
    const job = this.pending.get(message.id);
    if (job === undefined) return;
    this.pending.delete(message.id);
    if (message.type === 'called') job.resolve(message.outcome);
    else if (message.type === 'estimated') job.resolve(message.gas);
    else job.reject(errorOf(message.failure));
  }

  private scheduleRestart(ranMs: number): void {
    if (ranMs >= STABLE_RUN_MS) this.restartDelayMs = FIRST_RESTART_DELAY_MS;
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
    this.restartTimer = setTimeout(() => void this.start(), delay);
  }

  /** Lets the thread finish its jobs and close; terminates it if that takes too long. */
  async close(): Promise<void> {
    this.closing = true;
    this.ready = false;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (worker === undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      timer.unref();
      const closeWhenIdle = () => {
        if (this.pending.size === 0) worker.postMessage({ type: 'close' } satisfies MainMessage);
      };
      worker.on('message', (message: ThreadMessage) => {
        if (message.type === 'closed') resolve();
        else closeWhenIdle();
      });
      worker.once('exit', () => resolve());
      closeWhenIdle();
    });
    await worker.terminate();
  }
}

export class CallThreadPool implements CallExecution {
  private nextJobId = 0;

  private constructor(
    private readonly threads: readonly CallThread[],
    private readonly local: CallExecution,
  ) {}

  /** Starts the threads and resolves once each is ready or has failed to start (and is logged). */
  static async start(options: CallThreadPoolOptions): Promise<CallThreadPool> {
    const threads = Array.from({ length: options.count }, (_, i) => new CallThread(i + 1, options));
    await Promise.all(threads.map((thread) => thread.start()));
    return new CallThreadPool(threads, options.local);
  }

  call(request: CallRequest, blockNumber: bigint): Promise<CallOutcome> {
    const thread = this.leastBusy();
    if (thread === undefined) return this.local.call(request, blockNumber);
    return thread.run(this.nextJobId++, 'call', request, blockNumber) as Promise<CallOutcome>;
  }

  estimateGas(request: CallRequest, blockNumber: bigint): Promise<bigint> {
    const thread = this.leastBusy();
    if (thread === undefined) return this.local.estimateGas(request, blockNumber);
    return thread.run(this.nextJobId++, 'estimateGas', request, blockNumber) as Promise<bigint>;
  }

  /** Closes every thread after the jobs it has in hand. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  private leastBusy(): CallThread | undefined {
    let best: CallThread | undefined;
    for (const thread of this.threads) {
      if (thread.ready && (best === undefined || thread.pending.size < best.pending.size)) {
        best = thread;
      }
    }
    return best;
  }
}
