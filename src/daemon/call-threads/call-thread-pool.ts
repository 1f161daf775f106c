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
 * is over (`heavy-work-release.ts`) and no job came within the idle time, the threads stop if
 * nothing is asked of them for {@link AFTER_BURST_QUIET_MS} more: the burst's recoveries were what
 * kept them. Stopping them at once stopped them under the first admissions of a burst that came
 * right after, which then waited for a thread to start again (a second and more, measured with
 * two bursts 0.1 s apart; docs/benchmarks.md).
 *
 * Jobs wait in a queue that takes turns between callers (`fair-queue.ts`; a caller is a
 * WebSocket connection or an HTTP client's address) and go to threads that hold none, in
 * batches: the jobs that came in one turn of the event loop, or waited while the threads were
 * busy, go to a thread in one message (at most `MAX_BATCH`, shared out between the threads with
 * room), and the thread sends their answers back together (`answer-batch.ts` says when), so a
 * message and a wake-up of each side serve many calls rather than one (docs/benchmarks.md,
 * "Distinct eth_call: batches").
 * The jobs of a batch stay the main thread's until the thread begins each (`job-board.ts`): once
 * the job a thread runs has run `HAND_BACK_MS`, the jobs behind it go back to the front of the
 * queue, for another thread, or for this one when it is done. So a client's call waits behind at
 * most the job each thread runs, and that job's first `HAND_BACK_MS`, never behind the queue of
 * another client's slow calls.
 * The queue is bounded, all callers together (`--json-rpc.evm-queue`), and so is what one
 * caller has waiting or running (`--json-rpc.evm-queue-per-client`); past either bound a call
 * fails at once with -32005. While no thread is ready but one is starting, jobs wait for it;
 * only while every thread is down (waiting to be started again after dying) do they run on the
 * main thread. A thread that dies is started again after a pause that grows while it keeps
 * dying; the job it was running fails with an internal error rather than being run again where
 * it could do the same to the main thread, and the jobs of its batch it had not begun go back
 * to the front of the queue.
 *
 * A job that runs longer than the time limit (`--json-rpc.evm-timeout`, counted from when its
 * thread begins it, which the thread notes on the board) fails with an error that names the
 * limit, and its thread is terminated, as nothing else stops the EVM mid-call; the thread is
 * started again at once, and any job it held besides goes back to the front of the queue. The
 * limit holds on call threads only: a call run on the main thread cannot be stopped.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { AccessListResult } from '../chain/access-list.js';
import type { CallOutcome, CallRequest } from '../chain/call.js';
import type { CallExecution } from '../chain/chain-reader.js';
import {
  simulationData,
  type SimulatedBlockData,
  type SimulationRequest,
} from '../chain/simulate.js';
import { LimitExceededError } from '../../shared/errors.js';
import type { Logger } from '../logger.js';
import { AnswerPacer } from './answer-pacer.js';
import { FairQueue } from './fair-queue.js';
import { JobBoard, MAX_BATCH } from './job-board.js';
import {
  errorOf,
  requestData,
  type CallThreadData,
  type JobAnswer,
  type JobData,
  type JobKind,
  type MainMessage,
  type ThreadMessage,
} from './protocol.js';

export interface CallThreadPoolOptions {
  count: number;
  /** The compiled thread entry (`call-thread-entry.cjs`). */
  entry: URL;
  /** What every thread starts with, apart from its index, recovery port and board. */
  data: Omit<CallThreadData, 'index' | 'recoveryPort' | 'board'>;
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
 * rate, but little of it survives a collection. A process started with `--max-semi-space-size`
 * (the background daemon is, `shared/daemon-runtime.ts`) gives every isolate that semi-space
 * instead, this limit included (docs/benchmarks.md, "Distinct eth_call: fewer collections").
 */
const THREAD_YOUNG_GENERATION_MB = 8;
/** How long a thread has to finish its jobs and close before it is terminated. */
const CLOSE_TIMEOUT_MS = 5_000;
/**
 * How long after a burst the threads must have had nothing asked of them before they stop: a
 * deployment script's bursts come a fraction of a second apart.
 */
export const AFTER_BURST_QUIET_MS = 1_000;
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A thread that ran this long before dying is restarted after the first delay again. */
const STABLE_RUN_MS = 60_000;

type JobResult = CallOutcome | bigint | AccessListResult | SimulatedBlockData[];

/**
 * A job: what it is, and how it is answered. One flat object, made once per call: a call's
 * queueing allocates nothing for the simulations it is not.
 */
interface Job {
  kind: JobKind;
  /** What a call, estimate or access list runs. */
  request: CallRequest | undefined;
  /** What a simulation runs. */
  simulation: SimulationRequest | undefined;
  caller: string;
  blockNumber: bigint;
  resolve(value: JobResult): void;
  reject(error: Error): void;
}

/** What a job runs, as it crosses to its thread. */
function jobData(id: number, job: Job): JobData {
  const { kind, caller, blockNumber } = job;
  return kind === 'simulate'
    ? { id, caller, kind, simulation: simulationData(job.simulation!), blockNumber }
    : { id, caller, kind, request: requestData(job.request!), blockNumber };
}

/** Main-thread time per event-loop turn that answers of the threads may take at once. */
const ANSWER_SLICE_MS = 5;

/** States in which a thread will take jobs, now or once it has started (again). */
const RUNS: ReadonlySet<ThreadState> = new Set(['ready', 'starting', 'stopping']);

/** States of a thread that will be ready without a job asking for it. */
const COMING: ReadonlySet<ThreadState> = new Set(['starting', 'down']);

/**
 * How long the job a thread runs may hold the unbegun jobs of its batch before they go back to
 * the queue; also how often the main thread looks at a thread that holds jobs.
 */
const HAND_BACK_MS = 10;

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

/** Resolves or rejects a job as its answer says. */
function settleJob(job: Job, answer: JobAnswer): void {
  switch (answer.type) {
    case 'called':
      return job.resolve(answer.outcome);
    case 'estimated':
      return job.resolve(answer.gas);
    case 'accessListed':
      return job.resolve(answer.result);
    case 'simulated':
      return job.resolve(answer.blocks);
    case 'failed':
      return job.reject(errorOf(answer.failure));
  }
}

class CallThread {
  private worker: Worker | undefined;
  state: ThreadState = 'stopped';
  /** The worker being closed, and what settles once it has exited. */
  private closing: { worker: Worker; exited: Promise<void> } | undefined;
  /** The jobs handed to the thread and neither answered nor taken back, by id. */
  readonly pending = new Map<number, Job>();
  private board = new JobBoard();
  /** Set while the thread is terminated to end a job that ran past the time limit. */
  private aborting = false;
  private nextJobId = 0;
  /** Looks at the running job (time limit, hand-back) while the thread holds jobs. */
  private watchTimer: NodeJS.Timeout | undefined;
  private watchDue = 0;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  /** The channel whose port the sender recovery was lent last. */
  private lentChannel: MessageChannel | undefined;

  constructor(
    private readonly index: number,
    private readonly options: CallThreadPoolOptions,
    private readonly pool: PoolSide,
  ) {}

  get hasRoom(): boolean {
    return this.state === 'ready' && this.pending.size === 0;
  }

  /** Starts the thread; resolves once it is ready or has failed to start (logged). */
  start(): Promise<void> {
    const { logger } = this.options;
    const startedAt = Date.now();
    this.state = 'starting';
    const channel = this.options.recovery === undefined ? undefined : new MessageChannel();
    const recoveryPort = channel?.port2;
    const board = new JobBoard();
    this.board = board;
    const worker = new Worker(this.options.entry, {
      workerData: {
        ...this.options.data,
        index: this.index,
        recoveryPort,
        board: board.buffer,
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
        const running = board.running();
        const inHand = [...this.pending.values()];
        const died = running === undefined ? undefined : this.pending.get(running.id);
        this.pending.clear();
        this.stopWatching();
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
        died?.reject(new Error(`call thread ${this.index} stopped while running the call`));
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
        this.pool.requeue(inHand.filter((job) => job !== died));
      });
    });
  }

  /** Hands the thread a batch of jobs, in one message; it holds none before. */
  run(jobs: readonly Job[]): void {
    const batch: JobData[] = [];
    for (const job of jobs) {
      const id = this.nextJobId;
      this.nextJobId = JobBoard.next(id);
      this.pending.set(id, job);
      this.board.offer(id);
      batch.push(jobData(id, job));
    }
    this.worker!.postMessage({ type: 'jobs', jobs: batch } satisfies MainMessage);
    const { timeoutMs } = this.options;
    this.watchBy(Date.now() + (timeoutMs > 0 ? Math.min(timeoutMs, HAND_BACK_MS) : HAND_BACK_MS));
  }

  /**
   * Lends the sender recovery this start's port, once: when the thread says it serves
   * recoveries, which it does before its chain is open, or else when it is ready.
   */
  private lendRecoveryPort(channel: MessageChannel | undefined): void {
    if (channel === undefined || this.lentChannel === channel) return;
    this.lentChannel = channel;
    this.options.recovery?.lend(channel.port1);
  }

  private received(
    message: ThreadMessage,
    settle: () => void,
    channel: MessageChannel | undefined,
  ): void {
    if (message.type === 'recovering') {
      this.lendRecoveryPort(channel);
      return;
    }
    if (message.type === 'ready') {
      this.state = 'ready';
      this.lendRecoveryPort(channel);
      this.options.logger.info('call thread ready', {
        thread: this.index,
        codeCache: message.codeCache,
      });
      settle();
      this.pool.pump();
      return;
    }
    if (message.type === 'closed') return;
    const answered: Array<{ job: Job; answer: JobAnswer }> = [];
    for (const answer of message.answers) {
      const job = this.pending.get(answer.id);
      if (job === undefined) continue;
      this.pending.delete(answer.id);
      answered.push({ job, answer });
    }
    // The next batch first, so the thread runs while these answers are written.
    this.pool.pump();
    for (const { job, answer } of answered) this.pool.settle(() => settleJob(job, answer));
  }

  /** Has the watch look at the thread by `due` (ms since the epoch) at the latest. */
  private watchBy(due: number): void {
    if (this.watchTimer !== undefined) {
      if (this.watchDue <= due) return;
      clearTimeout(this.watchTimer);
    }
    this.watchDue = due;
    this.watchTimer = setTimeout(() => this.watch(), Math.max(0, due - Date.now()));
  }

  private stopWatching(): void {
    clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
  }

  /**
   * Aborts the running job once past the time limit; hands the jobs behind it back once it has
   * run `HAND_BACK_MS`; looks again while the thread holds jobs and either may still come due.
   */
  private watch(): void {
    this.watchTimer = undefined;
    if (this.pending.size === 0 || this.aborting) return;
    const now = Date.now();
    const running = this.board.running();
    if (running === undefined || !this.pending.has(running.id)) {
      // Between two jobs, or the batch not begun yet: its first job is not known to run.
      this.watchBy(now + HAND_BACK_MS);
      return;
    }
    const { timeoutMs } = this.options;
    const ranMs = now - running.startedAt;
    if (timeoutMs > 0 && ranMs >= timeoutMs) {
      this.abort(running.id);
      return;
    }
    if (ranMs >= HAND_BACK_MS) this.handBack(running.id);
    let due = timeoutMs > 0 ? running.startedAt + timeoutMs : Infinity;
    // Jobs still held besides the running one were begun and answered, or are about to be.
    if (this.pending.size > 1) {
      due = Math.min(due, (ranMs < HAND_BACK_MS ? running.startedAt : now) + HAND_BACK_MS);
    }
    if (due !== Infinity) this.watchBy(due);
  }

  /** Takes back the jobs the thread has not begun, for the queue's front. */
  private handBack(runningId: number): void {
    const back: Job[] = [];
    for (const [id, job] of this.pending) {
      if (id !== runningId && this.board.reclaim(id)) {
        this.pending.delete(id);
        back.push(job);
      }
    }
    if (back.length > 0) this.pool.requeue(back);
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
  private afterBurstTimer: NodeJS.Timeout | undefined;
  /** Whether a pump is due at the end of this event-loop turn. */
  private pumpDue = false;

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
    return this.enqueue('call', request, undefined, blockNumber, caller) as Promise<CallOutcome>;
  }

  estimateGas(request: CallRequest, blockNumber: bigint, caller?: string): Promise<bigint> {
    return this.enqueue('estimateGas', request, undefined, blockNumber, caller) as Promise<bigint>;
  }

  createAccessList(
    request: CallRequest,
    blockNumber: bigint,
    caller?: string,
  ): Promise<AccessListResult> {
    return this.enqueue(
      'accessList',
      request,
      undefined,
      blockNumber,
      caller,
    ) as Promise<AccessListResult>;
  }

  simulate(
    simulation: SimulationRequest,
    blockNumber: bigint,
    caller?: string,
  ): Promise<SimulatedBlockData[]> {
    return this.enqueue('simulate', undefined, simulation, blockNumber, caller) as Promise<
      SimulatedBlockData[]
    >;
  }

  /**
   * For the end of a burst of submitted transactions, whose sender recoveries were all that kept
   * the threads running: stops them {@link AFTER_BURST_QUIET_MS} later if nothing at all was
   * asked of them meanwhile, unless a job came within the idle time.
   */
  releaseAfterRecoveries(): void {
    if (this.idleMs === 0) return;
    const burstOver = Date.now();
    clearTimeout(this.afterBurstTimer);
    this.afterBurstTimer = setTimeout(() => {
      this.afterBurstTimer = undefined;
      const busy = this.queue.size > 0 || this.threads.some((each) => each.pending.size > 0);
      const asked = this.lastDemand >= burstOver;
      if (busy || asked || Date.now() - this.lastJob < this.idleMs) return;
      for (const thread of this.threads) thread.stop();
    }, AFTER_BURST_QUIET_MS);
    this.afterBurstTimer.unref();
  }

  /** Closes every thread after the jobs it has in hand; queued jobs run on the main thread. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    clearTimeout(this.afterBurstTimer);
    await Promise.all(this.threads.map((thread) => thread.close()));
    this.pump();
  }

  private enqueue(
    kind: JobKind,
    request: CallRequest | undefined,
    simulation: SimulationRequest | undefined,
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
        request,
        simulation,
        caller,
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
      this.pumpSoon();
    });
  }

  /** Pumps once this turn of the event loop is over, so the jobs that came in it go together. */
  private pumpSoon(): void {
    if (this.pumpDue) return;
    this.pumpDue = true;
    setImmediate(() => {
      this.pumpDue = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.size > 0) {
      const thread = this.withRoom();
      if (thread !== undefined) {
        thread.run(this.nextBatch());
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
    return this.threads.find((thread) => thread.hasRoom);
  }

  /** The next jobs in turn for a thread with room: its share of the queue, up to `MAX_BATCH`. */
  private nextBatch(): Job[] {
    let rooms = 0;
    for (const thread of this.threads) if (thread.hasRoom) rooms++;
    const size = Math.min(MAX_BATCH, Math.ceil(this.queue.size / rooms));
    const batch: Job[] = [];
    while (batch.length < size) batch.push(this.queue.shift()!);
    return batch;
  }

  private runHere(job: Job): void {
    this.runLocally(job).then(job.resolve, job.reject);
  }

  private runLocally(job: Job): Promise<JobResult> {
    switch (job.kind) {
      case 'call':
        return this.local.call(job.request!, job.blockNumber);
      case 'accessList':
        return this.local.createAccessList(job.request!, job.blockNumber);
      case 'estimateGas':
        return this.local.estimateGas(job.request!, job.blockNumber);
      case 'simulate':
        return this.local.simulate(job.simulation!, job.blockNumber);
    }
  }
}
