/**
 * The trace threads (`trace-thread.ts`): up to `--json-rpc.trace-threads` worker threads, started
 * when traces first need them and kept, each with its own chain reader, running one trace job at
 * a time; further jobs wait for a thread. A job past its time limit (per traced transaction,
 * geth's `timeout`) fails with geth's "execution timeout" and its thread is terminated (nothing
 * else stops the EVM mid-run); the next job that needs a thread starts a new one.
 */
import { Worker } from 'node:worker_threads';
import { errorOf } from '../call-threads/protocol.js';
import { LimitExceededError, ServerError } from '../../shared/errors.js';
import { JsonText } from '../rpc/dispatcher.js';
import type { Logger } from '../logger.js';
import type {
  TraceJob,
  TraceJobMessage,
  TraceThreadData,
  TraceThreadMessage,
} from './trace-protocol.js';
import type { TraceOptions } from './trace-options.js';

export interface TraceThreadsOptions {
  /** The thread entry (`trace-thread-entry.cjs`). */
  entry: URL;
  data: TraceThreadData;
  /** Most threads, so traces running at once (`--json-rpc.trace-threads`). */
  maxThreads: number;
  /** Most traces waiting for a thread (`--json-rpc.trace-queue`). */
  maxQueued: number;
  /** Told of each thread that has started, and whether its code came from the code cache. */
  logger?: Logger;
}

/**
 * The longest wait a Node timer takes: past it Node waits 1 ms instead. A longer trace timeout
 * is as good as none, so it is held to this.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface WorkerListeners {
  message(message: TraceThreadMessage): void;
  error(error: Error): void;
  exit(code: number): void;
}

/**
 * Subscribes `listeners` to `worker`; returns what unsubscribes exactly them (removing every
 * listener would also remove what Node's worker needs to deliver its messages).
 */
function listen(worker: Worker, listeners: WorkerListeners): () => void {
  worker.on('message', listeners.message);
  worker.on('error', listeners.error);
  worker.on('exit', listeners.exit);
  return () => {
    worker.off('message', listeners.message);
    worker.off('error', listeners.error);
    worker.off('exit', listeners.exit);
  };
}

interface Waiter {
  resolve(worker: Worker): void;
  reject(error: unknown): void;
}

/** How a job on a thread ended: `broken` threads are terminated, not used again. */
class FailedJob extends Error {
  constructor(
    readonly error: unknown,
    readonly broken: boolean,
  ) {
    super('trace job failed');
  }
}

export class TraceThreads {
  private readonly idle: Worker[] = [];
  /** Threads ready, busy or idle. */
  private readonly live = new Set<Worker>();
  private starting = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: TraceThreadsOptions) {}

  /** The job's result as the JSON text the thread wrote. */
  async run(job: TraceJob, options: TraceOptions): Promise<JsonText> {
    const worker = await this.acquire();
    try {
      const result = await this.runOn(worker, { job, options }, options.timeoutMs);
      this.release(worker);
      return result;
    } catch (failure) {
      const { error, broken } = failure as FailedJob;
      if (broken) this.discard(worker);
      else this.release(worker);
      throw error;
    }
  }

  private async acquire(): Promise<Worker> {
    const idle = this.idle.pop();
    if (idle !== undefined) return idle;
    if (this.live.size + this.starting >= this.options.maxThreads) {
      if (this.waiting.length >= this.options.maxQueued) {
        throw new LimitExceededError(
          `too many traces queued: ${this.waiting.length} wait for a trace thread (--json-rpc.trace-queue)`,
        );
      }
      return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
    }
    this.starting++;
    try {
      const worker = await this.start();
      this.live.add(worker);
      // A thread that dies while idle (or is terminated) is forgotten; its error is its exit.
      worker.on('error', () => {});
      worker.once('exit', () => this.forget(worker));
      return worker;
    } finally {
      this.starting--;
    }
  }

  private forget(worker: Worker): void {
    if (!this.live.delete(worker)) return;
    const index = this.idle.indexOf(worker);
    if (index >= 0) this.idle.splice(index, 1);
    const waiter = this.waiting.shift();
    if (waiter !== undefined) this.acquire().then(waiter.resolve, waiter.reject);
  }

  private release(worker: Worker): void {
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter.resolve(worker);
    else this.idle.push(worker);
  }

  private discard(worker: Worker): void {
    void worker.terminate();
    this.forget(worker);
  }

  private start(): Promise<Worker> {
    const worker = new Worker(this.options.entry, { workerData: this.options.data });
    // Idle threads, and a trace in flight, must not keep a stopping daemon alive.
    worker.unref();
    return new Promise((resolve, reject) => {
      const fail = (error: unknown) => {
        detach();
        void worker.terminate();
        reject(error);
      };
      const detach = listen(worker, {
        message: (message) => {
          if (message.type !== 'ready') return;
          detach();
          this.options.logger?.info('trace thread ready', { codeCache: message.codeCache });
          resolve(worker);
        },
        error: fail,
        exit: (code) => fail(new ServerError(`trace thread exited (code ${code})`)),
      });
    });
  }

  /** Runs `message`'s job; rejects with a {@link FailedJob}. */
  private runOn(worker: Worker, message: TraceJobMessage, timeoutMs: number): Promise<JsonText> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        detach();
        outcome();
      };
      const broken = (error: unknown) => settle(() => reject(new FailedJob(error, true)));
      const detach = listen(worker, {
        message: (answer) => {
          switch (answer.type) {
            case 'tx':
              clearTimeout(timer);
              timer = setTimeout(
                () => broken(new ServerError('execution timeout')),
                Math.min(timeoutMs, MAX_TIMER_MS),
              );
              break;
            case 'done':
              settle(() => resolve(new JsonText(answer.json)));
              break;
            case 'failed':
              settle(() => reject(new FailedJob(errorOf(answer.failure), false)));
              break;
            case 'ready':
              break;
          }
        },
        error: broken,
        exit: (code) => broken(new ServerError(`trace thread exited (code ${code})`)),
      });
      worker.postMessage(message);
    });
  }
}
