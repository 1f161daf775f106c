/**
 * Hands back, once a burst of transactions is over, the heap the burst needed.
 *
 * While thousands of transactions wait in the pool and go through blocks, V8 grows the main
 * thread's heap to hold them (measured: 30 MiB more than the live data once the burst is
 * done). It shrinks it again only when its memory reducer notices the allocation rate has
 * dropped, eight seconds or more later and sometimes not for half a minute; until then the node
 * keeps the burst's peak. So when at least `minTransactions` have been committed since the last
 * release, the pool has nothing pending after a block, and no transaction arrives for `quietMs`
 * after that, the node collects its heap fully once (one pause of the main thread, while it is
 * idle). A steady stream of transactions pays for it at most once per `minTransactions`.
 */
import { collectHeapFully } from './diagnostics/heap-collection.js';
import type { EventBus, Unsubscribe } from './events/event-bus.js';
import type { Logger } from './logger.js';
import type { PoolStatus } from './txpool/types.js';

/** Committed transactions that make a burst, by default. */
export const BURST_TRANSACTIONS = 1000;
/** Quiet time after the pool drains, by default. */
export const BURST_QUIET_MS = 100;

export interface BurstReleaseOptions {
  bus: EventBus;
  pool: { status(): PoolStatus };
  /** Told at `debug` of each collection (heap before and after, wall and CPU time). */
  logger?: Logger;
  /** What is done once a burst is over; by default the collection, {@link collectHeapFully}. */
  collect?: () => Promise<void>;
  /** Transactions committed since the last release that make a burst. */
  minTransactions?: number;
  /** How long the pool must stay empty, in ms. */
  quietMs?: number;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** Watches blocks and the pool; returns what stops watching. */
export function releaseAfterBursts(options: BurstReleaseOptions): Unsubscribe {
  const {
    bus,
    pool,
    logger,
    collect = collectHeapFully,
    minTransactions = BURST_TRANSACTIONS,
    quietMs = BURST_QUIET_MS,
  } = options;
  let committed = 0;
  let timer: NodeJS.Timeout | undefined;
  let collecting = false;
  const disarm = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const release = async () => {
    timer = undefined;
    collecting = true;
    committed = 0;
    const started = performance.now();
    // All threads: V8 collects with helper threads.
    const cpuBefore = process.cpuUsage();
    const heapBefore = process.memoryUsage().heapTotal;
    try {
      await collect();
      const cpu = process.cpuUsage(cpuBefore);
      logger?.debug('heap collected after a burst of transactions', {
        heapMiB: `${mib(heapBefore)} -> ${mib(process.memoryUsage().heapTotal)}`,
        ms: Math.round(performance.now() - started),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      });
    } catch (error) {
      logger?.warn('heap collection after a burst failed', { error: String(error) });
    } finally {
      collecting = false;
    }
  };
  const stopBlocks = bus.onBlock(({ block }) => {
    committed += block.block.transactions.length;
    if (committed < minTransactions || collecting) return;
    if (pool.status().pending > 0) {
      disarm();
    } else if (timer === undefined) {
      timer = setTimeout(() => void release(), quietMs);
      timer.unref();
    }
  });
  const stopPending = bus.onPendingTx(disarm);
  return () => {
    disarm();
    stopBlocks();
    stopPending();
  };
}
