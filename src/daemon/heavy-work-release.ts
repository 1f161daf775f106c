/**
 * Hands back, once heavy work is over, the memory it needed.
 *
 * Two kinds of work leave the node holding far more than it keeps live:
 * - a burst of transactions: while thousands wait in the pool and go through blocks, V8 grows the
 *   main thread's heap to hold them (measured: 30 MiB past the live data once the burst is done);
 * - large answers: `eth_getLogs` of 10 000 logs is a string of about 5.7 MB, copied again on its
 *   way to the socket; eight of them left some 40 MiB of garbage in the heap.
 * V8 shrinks the heap again only when its memory reducer notices the allocation rate has dropped,
 * eight seconds or more later and sometimes not for half a minute; glibc keeps the pages freed
 * inside its arenas (buffers' backing stores, LMDB's write buffers) until `malloc_trim` is called
 * (`os-memory.ts`).
 *
 * So when at least `minTransactions` have been committed, or `minAnswerChars` of results served
 * in answers of at least {@link LARGE_ANSWER_CHARS} each, since the last release, and then the
 * node is quiet (the pool has nothing pending after a block and admits nothing, neither a
 * transaction nor another large answer comes for `quietMs`, and, after answers, no request is
 * being answered), it runs `release` once: by default {@link releaseMemory}, one full collection
 * of the heap (one pause of the main thread while it is idle), then `malloc_trim`. A steady
 * stream of work pays for it at most once per threshold; under a steady mix of transactions and
 * reads the pool is quiet only now and then, and it runs irregularly (docs/benchmarks.md, the
 * soak of 2026-11-26 15:51).
 *
 * With `raiseHeapGrowth`, a burst also lets the heap grow further between full collections
 * while it runs (heap-growth.ts): from when `burstPending` transactions wait in the pool until
 * the pool is empty after a block, so the release's collection already runs under the usual
 * growth.
 */
import { collectHeapFully } from './diagnostics/heap-collection.js';
import type { EventBus } from './events/event-bus.js';
import type { Logger } from './logger.js';
import type { OsMemory } from './os-memory.js';
import type { PoolStatus } from './txpool/types.js';

/** Committed transactions that make heavy work, by default. */
export const RELEASE_TRANSACTIONS = 1000;
/** Characters of large answers that make heavy work, by default: six `eth_getLogs` of 10 000. */
export const RELEASE_ANSWER_CHARS = 32 * 2 ** 20;
/** The smallest answer counted: below it is the ordinary traffic V8's young generation absorbs. */
export const LARGE_ANSWER_CHARS = 64 * 1024;
/** Quiet time after heavy work, by default. */
export const RELEASE_QUIET_MS = 100;
/**
 * Pending transactions that make a burst, by default: far above what a steady stream leaves
 * waiting between blocks (the benchmark's soak: 10 a second), and about a quarter of a second of
 * a burst's admissions.
 */
export const BURST_PENDING = 256;

/** What a release did, for the `debug` line. */
export type ReleaseDetails = Record<string, unknown>;

export interface HeavyWorkReleaseOptions {
  bus: EventBus;
  pool: { status(): PoolStatus; admitting(): number };
  /** What is done once heavy work is over. */
  release: () => Promise<ReleaseDetails | void> | void;
  /** Told at `debug` of each release (why, and what `release` reports), and of its failure. */
  logger?: Logger;
  /** Transactions committed since the last release that make heavy work. */
  minTransactions?: number;
  /** Characters of large answers since the last release that make heavy work. */
  minAnswerChars?: number;
  /** How long the node must stay quiet, in ms. */
  quietMs?: number;
  /** Whether requests are being answered: then the quiet after large answers has not begun. */
  busy?: () => boolean;
  /** Called when a burst begins; what it answers is called when the burst ends. */
  raiseHeapGrowth?: () => () => void;
  /** Pending transactions that make a burst. */
  burstPending?: number;
}

export interface HeavyWorkWatch {
  /** Counts a result of `chars` characters that was served. */
  answered(chars: number): void;
  stop(): void;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** Watches blocks, the pool and the answers counted by `answered`. */
export function releaseAfterHeavyWork(options: HeavyWorkReleaseOptions): HeavyWorkWatch {
  const {
    bus,
    pool,
    logger,
    release,
    minTransactions = RELEASE_TRANSACTIONS,
    minAnswerChars = RELEASE_ANSWER_CHARS,
    quietMs = RELEASE_QUIET_MS,
    busy = () => false,
    raiseHeapGrowth,
    burstPending = BURST_PENDING,
  } = options;
  let committed = 0;
  let answerChars = 0;
  let timer: NodeJS.Timeout | undefined;
  let releasing = false;
  let endRaise: (() => void) | undefined;
  const endBurst = () => {
    endRaise?.();
    endRaise = undefined;
  };
  const disarm = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const run = async () => {
    timer = undefined;
    releasing = true;
    const after = committed >= minTransactions ? 'transactions' : 'answers';
    const work = { transactions: committed, answerMiB: mib(answerChars) };
    committed = 0;
    answerChars = 0;
    const started = performance.now();
    // All threads: V8 collects with helper threads.
    const cpuBefore = process.cpuUsage();
    try {
      const details = await release();
      const cpu = process.cpuUsage(cpuBefore);
      logger?.debug(`memory released after heavy work (${after})`, {
        ...work,
        ...details,
        ms: Math.round(performance.now() - started),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      });
    } catch (error) {
      logger?.warn('memory release after heavy work failed', { error: String(error) });
    } finally {
      releasing = false;
    }
  };
  /** (Re)starts the quiet spell if the work done is heavy and nothing is pending. */
  const armIfHeavy = () => {
    if (releasing || (committed < minTransactions && answerChars < minAnswerChars)) return;
    disarm();
    if (pool.status().pending > 0) return;
    wait();
  };
  // After large answers the node is quiet only once no request is being answered (another large
  // one may be on its way). After a burst the pool decides: under a steady mix of reads and
  // transactions a moment with no request in flight and no new transaction hardly ever comes.
  // Admissions under way are not quiet either: the next burst's first transactions spend their
  // first few hundred milliseconds in sender recovery, before any of them is pending, and a
  // release then paused its admissions (measured: a second and more, docs/benchmarks.md).
  const notQuiet = () => pool.admitting() > 0 || (committed < minTransactions && busy());
  const wait = () => {
    timer = setTimeout(() => (notQuiet() ? wait() : void run()), quietMs);
    timer.unref();
  };
  const stopBlocks = bus.onBlock(({ block }) => {
    committed += block.block.transactions.length;
    if (pool.status().pending === 0) endBurst();
    // An armed timer is left alone: a block does not end the quiet, a new transaction does.
    if (timer === undefined) armIfHeavy();
    else if (pool.status().pending > 0) disarm();
  });
  const stopPending = bus.onPendingTx(() => {
    disarm();
    if (raiseHeapGrowth && endRaise === undefined && pool.status().pending >= burstPending) {
      endRaise = raiseHeapGrowth();
    }
  });
  return {
    answered(chars) {
      if (chars < LARGE_ANSWER_CHARS) return;
      answerChars += chars;
      armIfHeavy();
    },
    stop() {
      disarm();
      endBurst();
      stopBlocks();
      stopPending();
    },
  };
}

export interface MemoryReleaseOptions {
  /** The addon's functions, when it is there (`os-memory.ts`). */
  os: OsMemory | undefined;
  /** The full collection; by default {@link collectHeapFully}. */
  collect?: () => Promise<void>;
}

/**
 * The default release: a full, memory-reducing collection of the main thread's heap, which frees
 * the buffers the heap's garbage held; then `malloc_trim`, which hands the pages glibc then holds
 * free back to the system.
 * Reports the heap and resident memory before, after the collection and at the end.
 */
export function releaseMemory(options: MemoryReleaseOptions): () => Promise<ReleaseDetails> {
  const { os, collect = collectHeapFully } = options;
  return async () => {
    const before = process.memoryUsage();
    await collect();
    const collected = process.memoryUsage();
    if (os === undefined) {
      return {
        heapMiB: `${mib(before.heapTotal)} -> ${mib(collected.heapTotal)}`,
        rssMiB: `${mib(before.rss)} -> ${mib(collected.rss)}`,
        osMemory: 'absent',
      };
    }
    const mallocTrimReleased = os.trimMalloc?.();
    const after = process.memoryUsage();
    return {
      heapMiB: `${mib(before.heapTotal)} -> ${mib(after.heapTotal)}`,
      rssMiB: `${mib(before.rss)} -> ${mib(collected.rss)} (collected) -> ${mib(after.rss)}`,
      mallocTrimReleased,
    };
  };
}
