/**
 * Runs trace jobs on threads of their own (`trace-thread.ts`), one thread per job, at most
 * {@link MAX_CONCURRENT_TRACES} at a time (more wait their turn). A job past its time limit (per
 * traced transaction, geth's `timeout`) has its thread terminated and fails with geth's
 * "execution timeout".
 */
import { Worker } from 'node:worker_threads';
import { errorOf } from '../call-threads/protocol.js';
import { ServerError } from '../errors.js';
import type { TraceJob, TraceThreadData, TraceThreadMessage } from './trace-protocol.js';
import type { TraceOptions } from './trace-options.js';

/** Traces running at once; each holds a core while it runs. */
export const MAX_CONCURRENT_TRACES = 2;

export interface TraceThreadsOptions {
  /** The compiled thread entry (`trace-thread.js`). */
  entry: URL;
  data: Omit<TraceThreadData, 'job' | 'options'>;
}

export class TraceThreads {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly options: TraceThreadsOptions) {}

  async run(job: TraceJob, options: TraceOptions): Promise<unknown> {
    if (this.running >= MAX_CONCURRENT_TRACES) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    try {
      return await this.runOnThread(job, options);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private runOnThread(job: TraceJob, options: TraceOptions): Promise<unknown> {
    const data: TraceThreadData = { ...this.options.data, job, options };
    const worker = new Worker(this.options.entry, { workerData: data });
    // A trace in flight must not keep a stopping daemon alive.
    worker.unref();
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      // Later events of a settled job (its thread closing its reader, then exiting) change
      // nothing; a thread that is not done in time is stopped here.
      const settle = (outcome: () => void, stop = false) => {
        clearTimeout(timer);
        if (stop) void worker.terminate();
        if (settled) return;
        settled = true;
        outcome();
      };
      worker.on('message', (message: TraceThreadMessage) => {
        switch (message.type) {
          case 'tx':
            clearTimeout(timer);
            timer = setTimeout(
              () => settle(() => reject(new ServerError('execution timeout')), true),
              options.timeoutMs,
            );
            break;
          case 'done':
            settle(() => resolve(message.result));
            break;
          case 'failed':
            settle(() => reject(errorOf(message.failure)));
            break;
        }
      });
      worker.on('error', (error) => settle(() => reject(error)));
      worker.on('exit', (code) =>
        settle(() => reject(new ServerError(`trace thread stopped (exit code ${code})`))),
      );
    });
  }
}
