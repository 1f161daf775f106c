/**
 * The call threads: worker threads that run the EVM for `eth_call`, `eth_estimateGas` and
 * `eth_createAccessList`.
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
 * Threads start on demand and stop when idle (`--json-rpc.evm-idle`, `idleMs`): each holds an
 * isolate of its own, its caches and the bundle's compiled code, some 24 MiB that a node without
 * calls for a while does not need (docs/benchmarks.md, "Memory"). The first call, or the first
 * sender recovery (`wake`), starts one thread; further threads start while every running one is
 * busy and jobs wait. Once nothing was asked of them for `idleMs`, the threads are closed. Jobs
 * that arrive meanwhile wait for a thread to start, as behind a busy one. With `idleMs` 0 every
 * thread starts with the pool and runs until it closes. When a burst of submitted transactions
 * is over (`heavy-work-release.ts`) and no job came within the idle time, the threads stop at once:
 * the burst's recoveries were what kept them.
 *
 * Jobs wait in a queue that takes turns between callers (`fair-queue.ts`; a caller is a
 * WebSocket connection or an HTTP client's address) and go to the ready thread with the fewest
 * in hand; a thread holds one job at a time. So a client's call waits behind at most the job
 * each thread runs, never behind the queue of another client's slow calls. (A thread used to
 * hold the next job too, to spare it the wait for a message between jobs; a job handed over
 * cannot be taken back, so a slow one held that way made every other client wait for it.)
 * The queue is bounded, all callers together (`--json-rpc.evm-queue`), and so is what one
 * caller has waiting or running (`--json-rpc.evm-queue-per-client`); past either bound a call
 * fails at once with -32005. While no thread is ready but one is starting, jobs wait for it;
 * only while every thread is down (waiting to be started again after dying) do they run on the
 * main thread. A thread that dies is started again after a pause that grows while it keeps
 * dying; the job it had in hand fails with an internal error rather than being run again where
 * it could do the same to the main thread.
 *
 * A job that runs longer than the time limit (`--json-rpc.evm-timeout`, counted from when its
 * thread begins it, as far as the main thread can tell) fails with an error that names the
 * limit, and its thread is terminated, as nothing else stops the EVM mid-call; the thread is
 * started again at once, and any job it held besides goes back to the front of the queue. The
 * limit holds on call threads only: a call run on the main thread cannot be stopped.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { AccessListResult } from '../chain/access-list.js';
import type { CallOutcome, CallRequest } from '../chain/call.js';
import type { CallExecution } from '../chain/chain-reader.js';
import { LimitExceededError } from '../../shared/errors.js';
import type { Logger } from '../logger.js';
import { AnswerPacer } from './answer-pacer.js';
import { FairQueue } from './fair-queue.js';
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
  /** Longest a job may run, in ms (`--json-rpc.evm-timeout`); 0 for no limit. */
  timeoutMs: number;
  limits: CallQueueLimits;
  logger: Logger;
  /** Told about each job aborted for running past `timeoutMs`. */
  onTimeout?: () => void;
  /**
   * How long the threads may go without a job or a `wake` before they are stopped, in ms
   * (`--json-rpc.evm-idle`); 0 or absent starts them all at once and keeps them.
   */
  idleMs?: number;
  /** Called once a thread stopped for idling has exited: its memory is free then. */
  onStopped?: () => void;
}

export interface CallQueueLimits {
  /** Most jobs waiting for a thread, all callers together (`--json-rpc.evm-queue`). */
  maxQueued: number;
  /** Most jobs of one caller waiting or in a thread's hands (`--json-rpc.evm-queue-per-client`). */
  maxPerCaller: number;
}

/** Who a job is for when the API did not say: such jobs share one turn. */
const UNNAMED_CALLER = '';

/** Threads started when the configuration does not say: one per further core, up to this. */
export const DEFAULT_MAX_EVM_THREADS = 3;

/**
 * How many call threads to start: the configured number, or one per core beyond the first (at
 * least one, so that the time limit holds on a single core too).
 */
export function evmThreadCount(configured: number | undefined, cores: number): number {
  return configured ?? Math.max(1, Math.min(cores - 1, DEFAULT_MAX_EVM_THREADS));
}

/** The time limit as an operator wrote it: `5s`, `750ms`. */
function shownDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
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

type JobResult = CallOutcome | bigint | AccessListResult;

/** A job: what it is, and how it is answered. */
interface Job {
  kind: JobKind;
  caller: string;
  request: CallRequest;
  blockNumber: bigint;
  resolve(value: JobResult): void;
  reject(error: Error): void;
}

/** Main-thread time per event-loop turn that answers of the threads may take at once. */
const ANSWER_SLICE_MS = 5;

/** States in which a thread will take jobs, now or once it has started (again). */
const RUNS: ReadonlySet<ThreadState> = new Set(['ready', 'starting', 'stopping']);

/** States of a thread that will be ready without a job asking for it. */
const COMING: ReadonlySet<ThreadState> = new Set(['starting', 'down']);

/** Jobs a thread holds at once: the one it runs (see the header for why not the next too). */
const JOBS_PER_THREAD = 1;

/** What the pool does for its threads. */
interface PoolSide {
  /** Gives jobs to threads that have room, or runs them on the main thread if all are down. */
  pump(): void;
  /** Puts jobs back at the front of the queue, in their order. */
  requeue(jobs: readonly Job[]): void;
  /** Settles a job's answer, paced so a burst of answers does not hold the main thread. */
  settle(answer: () => void): void;
}

/**
 * `stopped`: not running, started on demand; `stopping`: closing after an idle spell; `down`:
 * died, started again after a pause; `closed`: for good.
 */
type ThreadState = 'stopped' | 'starting' | 'ready' | 'stopping' | 'down' | 'closed';

class CallThread {
  private worker: Worker | undefined;
  state: ThreadState = 'stopped';
  /** The worker being closed, and what settles once it has exited. */
  private closing: { worker: Worker; exited: Promise<void> } | undefined;
  readonly pending = new Map<number, Job & { timer?: NodeJS.Timeout }>();
  /** Set while the thread is terminated to end a job that ran past the time limit. */
  private aborting = false;
  private nextJobId = 0;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly index: number,
    private readonly options: CallThreadPoolOptions,
    private readonly pool: PoolSide,
  ) {}

  get hasRoom(): boolean {
    return this.state === 'ready' && this.pending.size < JOBS_PER_THREAD;
  }

  /** Starts the thread; resolves once it is ready or has failed to start (logged). */
  start(): Promise<void> {
    const { logger } = this.options;
    const startedAt = Date.now();
    this.state = 'starting';
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
        const wasReady = this.state === 'ready' || this.aborting;
        if (this.worker === worker) this.worker = undefined;
        channel?.port1.close();
        const inHand = [...this.pending.values()];
        this.pending.clear();
        for (const job of inHand) clearTimeout(job.timer);
        settle();
        if (this.state === 'closed') {
          for (const job of inHand) job.reject(new Error('call threads closed'));
          return;
        }
        if (this.state === 'stopping') {
          this.state = 'stopped';
          this.options.logger.info('call thread stopped after idling', { thread: this.index });
          this.pool.requeue(inHand);
          this.options.onStopped?.();
          return;
        }
        if (this.aborting) {
          this.aborting = false;
          this.pool.requeue(inHand);
          void this.start();
          return;
        }
        for (const job of inHand) {
          job.reject(new Error(`call thread ${this.index} stopped while running the call`));
        }
        logger.error(
          wasReady ? 'call thread stopped; starting it again' : 'call thread failed to start',
          {
            thread: this.index,
            code,
            error: String(failure?.stack ?? failure ?? 'none'),
            inMs: this.restartDelayMs,
          },
        );
        this.state = 'down';
        this.scheduleRestart(wasReady ? Date.now() - startedAt : 0);
        this.pool.pump();
      });
    });
  }

  run(job: Job): void {
    const id = this.nextJobId++;
    this.pending.set(id, job);
    if (this.pending.size === 1) this.startClock(id);
    this.worker!.postMessage({
      type: 'job',
      id,
      kind: job.kind,
      request: requestData(job.request),
      blockNumber: job.blockNumber,
    } satisfies MainMessage);
  }

  private received(
    message: ThreadMessage,
    settle: () => void,
    channel: MessageChannel | undefined,
  ): void {
    if (message.type === 'ready') {
      this.state = 'ready';
      if (channel !== undefined) this.options.recovery?.lend(channel.port1);
      this.options.logger.info('call thread ready', { thread: this.index });
      settle();
      this.pool.pump();
      return;
    }
    if (message.type === 'closed') return;
    const job = this.pending.get(message.id);
    if (job === undefined) return;
    this.pending.delete(message.id);
    clearTimeout(job.timer);
    const [next] = this.pending.keys();
    if (next !== undefined) this.startClock(next);
    this.pool.pump();
    if (message.type === 'called') this.pool.settle(() => job.resolve(message.outcome));
    else if (message.type === 'estimated') this.pool.settle(() => job.resolve(message.gas));
    else if (message.type === 'accessListed') this.pool.settle(() => job.resolve(message.result));
    else this.pool.settle(() => job.reject(errorOf(message.failure)));
  }

  /**
   * Starts job `id`'s time limit. The thread runs its jobs one at a time in the order it got
   * them, so a job begins when it is handed to an idle thread or when the answer to the job
   * ahead of it arrives; counting from there spares the thread a message per job.
   */
  private startClock(id: number): void {
    const { timeoutMs } = this.options;
    const job = this.pending.get(id);
    if (timeoutMs > 0 && job !== undefined) {
      job.timer = setTimeout(() => this.abort(id), timeoutMs);
    }
  }

  /** Fails job `id` for running past the limit and terminates the thread to stop it. */
  private abort(id: number): void {
    const job = this.pending.get(id);
    if (job === undefined || this.worker === undefined || this.aborting) return;
    this.pending.delete(id);
    const limit = shownDuration(this.options.timeoutMs);
    job.reject(
      new LimitExceededError(
        `execution aborted (timeout = ${limit}): the call ran longer than --json-rpc.evm-timeout allows`,
      ),
    );
    this.options.onTimeout?.();
    this.options.logger.warn('call thread terminated to end a call past the time limit', {
      thread: this.index,
      limit,
    });
    if (this.state !== 'closed') {
      this.aborting = true;
      this.state = 'starting';
    }
    void this.worker.terminate();
  }

  private scheduleRestart(ranMs: number): void {
    if (ranMs >= STABLE_RUN_MS) this.restartDelayMs = FIRST_RESTART_DELAY_MS;
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
    this.restartTimer = setTimeout(() => void this.start(), delay);
  }

  /** Closes an idle thread to free its memory; it can be started again. */
  stop(): void {
    if (this.state !== 'ready' || this.pending.size > 0) return;
    this.state = 'stopping';
    void this.shutDown();
  }

  /** Lets the thread finish its jobs and close; terminates it if that takes too long. */
  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.restartTimer);
    await this.shutDown();
  }

  private shutDown(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve();
    if (this.closing?.worker === worker) return this.closing.exited;
    const exited = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      timer.unref();
      worker.on('message', (message: ThreadMessage) => {
        if (message.type === 'closed') resolve();
      });
      worker.once('exit', () => resolve());
      worker.postMessage({ type: 'close' } satisfies MainMessage);
    }).then(async () => {
      await worker.terminate();
    });
    this.closing = { worker, exited };
    return exited;
  }
}

export class CallThreadPool implements CallExecution {
  private readonly threads: CallThread[];
  private readonly queue = new FairQueue<Job>();
  /** Jobs of each caller that are queued or in a thread's hands; no entry for none. */
  private readonly inFlight = new Map<string, number>();
  private readonly limits: CallQueueLimits;
  private readonly pacer = new AnswerPacer(ANSWER_SLICE_MS);
  private readonly idleMs: number;
  /** When a job or a `wake` last asked for the threads (ms since the epoch). */
  private lastDemand = 0;
  /** When a job last came or was answered. */
  private lastJob = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  private constructor(
    options: CallThreadPoolOptions,
    private readonly local: CallExecution,
  ) {
    this.limits = options.limits;
    this.idleMs = options.idleMs ?? 0;
    const side: PoolSide = {
      pump: () => this.pump(),
      requeue: (jobs) => {
        for (const job of [...jobs].reverse()) this.queue.pushFront(job.caller, job);
        this.pump();
      },
      settle: (answer) => {
        this.noteJob();
        this.pacer.settle(answer);
      },
    };
    this.threads = Array.from(
      { length: options.count },
      (_, i) => new CallThread(i + 1, options, side),
    );
  }

  /**
   * Makes the pool. Without an idle limit it starts every thread and resolves once each is
   * ready or has failed to start (and is logged); with one, threads start on demand.
   */
  static async start(options: CallThreadPoolOptions): Promise<CallThreadPool> {
    const pool = new CallThreadPool(options, options.local);
    if (pool.idleMs === 0) await Promise.all(pool.threads.map((thread) => thread.start()));
    return pool;
  }

  /**
   * Says that work for the threads other than jobs is coming (sender recovery): starts a thread
   * if none is running, and counts as activity that keeps them from stopping.
   */
  wake(): void {
    this.noteDemand();
    if (!this.threads.some((each) => each.state === 'ready' || each.state === 'starting')) {
      this.startOneMore();
    }
  }

  /** Jobs waiting for a thread. */
  get queued(): number {
    return this.queue.size;
  }

  call(request: CallRequest, blockNumber: bigint, caller?: string): Promise<CallOutcome> {
    return this.enqueue('call', request, blockNumber, caller) as Promise<CallOutcome>;
  }

  estimateGas(request: CallRequest, blockNumber: bigint, caller?: string): Promise<bigint> {
    return this.enqueue('estimateGas', request, blockNumber, caller) as Promise<bigint>;
  }

  createAccessList(
    request: CallRequest,
    blockNumber: bigint,
    caller?: string,
  ): Promise<AccessListResult> {
    return this.enqueue('accessList', request, blockNumber, caller) as Promise<AccessListResult>;
  }

  /**
   * Stops the threads now, unless a job came within the idle time: for the end of a burst of
   * submitted transactions, whose sender recoveries were all that kept them running.
   */
  releaseAfterRecoveries(): void {
    const busy = this.queue.size > 0 || this.threads.some((each) => each.pending.size > 0);
    if (this.idleMs === 0 || busy || Date.now() - this.lastJob < this.idleMs) return;
    for (const thread of this.threads) thread.stop();
  }

  /** Closes every thread after the jobs it has in hand; queued jobs run on the main thread. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await Promise.all(this.threads.map((thread) => thread.close()));
    this.pump();
  }

  private enqueue(
    kind: JobKind,
    request: CallRequest,
    blockNumber: bigint,
    caller = UNNAMED_CALLER,
  ): Promise<JobResult> {
    const { maxQueued, maxPerCaller } = this.limits;
    const held = this.inFlight.get(caller) ?? 0;
    if (held >= maxPerCaller) {
      return Promise.reject(
        new LimitExceededError(
          `too many calls in flight: this client has ${maxPerCaller} eth_call/eth_estimateGas waiting or running, the limit per client (--json-rpc.evm-queue-per-client)`,
        ),
      );
    }
    if (this.queue.size >= maxQueued) {
      return Promise.reject(
        new LimitExceededError(
          `too many calls queued: ${maxQueued} eth_call/eth_estimateGas wait for a call thread, the node's limit (--json-rpc.evm-queue)`,
        ),
      );
    }
    this.inFlight.set(caller, held + 1);
    this.noteJob();
    const settled = () => {
      const left = (this.inFlight.get(caller) ?? 1) - 1;
      if (left > 0) this.inFlight.set(caller, left);
      else this.inFlight.delete(caller);
    };
    return new Promise((resolve, reject) => {
      this.queue.push(caller, {
        kind,
        caller,
        request,
        blockNumber,
        resolve: (value) => {
          settled();
          resolve(value);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
      });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.size > 0) {
      const thread = this.withRoom();
      if (thread !== undefined) {
        thread.run(this.queue.shift()!);
        continue;
      }
      // Every running thread is busy: one more starts, if one is stopped and none is starting.
      if (!this.threads.some((each) => each.state === 'starting')) this.startOneMore();
      // Jobs wait for a thread that runs or starts; with every thread down or closed they run here.
      if (this.threads.some((each) => RUNS.has(each.state))) return;
      this.runHere(this.queue.shift()!);
    }
  }

  private startOneMore(): void {
    const stopped = this.threads.find((each) => each.state === 'stopped');
    if (stopped !== undefined) void stopped.start();
  }

  private noteJob(): void {
    this.lastJob = Date.now();
    this.noteDemand();
  }

  /** Counts as activity, and makes sure the idle check is due. */
  private noteDemand(): void {
    this.lastDemand = Date.now();
    if (this.idleMs > 0 && this.idleTimer === undefined) this.checkIdleIn(this.idleMs);
  }

  private checkIdleIn(ms: number): void {
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      const idleFor = Date.now() - this.lastDemand;
      const busy = this.queue.size > 0 || this.threads.some((each) => each.pending.size > 0);
      if (busy) this.checkIdleIn(this.idleMs);
      else if (idleFor < this.idleMs) this.checkIdleIn(this.idleMs - idleFor);
      else {
        for (const thread of this.threads) thread.stop();
        // A thread still starting, or waiting to be started again, is stopped once it is ready.
        if (this.threads.some((each) => COMING.has(each.state))) this.checkIdleIn(this.idleMs);
      }
    }, ms);
    // An idle check must not keep the daemon's process alive.
    this.idleTimer.unref();
  }

  private withRoom(): CallThread | undefined {
    let best: CallThread | undefined;
    for (const thread of this.threads) {
      if (thread.hasRoom && (best === undefined || thread.pending.size < best.pending.size)) {
        best = thread;
      }
    }
    return best;
  }

  private runHere(job: Job): void {
    const running: Promise<JobResult> =
      job.kind === 'call'
        ? this.local.call(job.request, job.blockNumber)
        : job.kind === 'accessList'
          ? this.local.createAccessList(job.request, job.blockNumber)
          : this.local.estimateGas(job.request, job.blockNumber);
    running.then(job.resolve, job.reject);
  }
}
