/**
 * Hands back, once a burst of transactions is over, the heap the burst needed.
 *
 * While thousands of transactions wait in the pool and go through blocks, V8 grows the main
 * thread's heap to hold them (measured: 30 MiB more than the live data once the burst is
 * done). It shrinks it again only when its memory reducer notices the allocation rate has
 * dropped, eight seconds or more later and sometimes not for half a minute; until then the node
 * keeps the burst's peak. So when at least `minTransactions` have been committed since the last
 * release, the pool has nothing pending after a block, and no transaction arrives for `quietMs`
 * after that, the node collects its heap fully once (tens of ms of one thread, while it is idle).
 * A steady stream of transactions never stays quiet that long, so it never pays for it.
 */
import type { EventBus, Unsubscribe } from './events/event-bus.js';
import type { PoolStatus } from './txpool/types.js';

export interface BurstReleaseOptions {
  bus: EventBus;
  pool: { status(): PoolStatus };
  /** The collection itself (`collectHeapFully`). */
  collect: () => Promise<void>;
  /** Transactions committed since the last release that make a burst. */
  minTransactions: number;
  /** How long the pool must stay empty, in ms. */
  quietMs: number;
  /** Told when a collection ran: heap bytes before and after, and how long it took. */
  onReleased?: (released: { heapBefore: number; heapAfter: number; ms: number }) => void;
  onError?: (error: unknown) => void;
}

/** Committed transactions that make a burst, by default. */
export const BURST_TRANSACTIONS = 1000;
/** Quiet time after the pool drains, by default. */
export const BURST_QUIET_MS = 100;

/** Watches blocks and the pool; returns what stops watching. */
export function releaseAfterBursts(options: BurstReleaseOptions): Unsubscribe {
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
    const heapBefore = process.memoryUsage().heapTotal;
    try {
      await options.collect();
      options.onReleased?.({
        heapBefore,
        heapAfter: process.memoryUsage().heapTotal,
        ms: performance.now() - started,
      });
    } catch (error) {
      options.onError?.(error);
    } finally {
      collecting = false;
    }
  };
  const stopBlocks = options.bus.onBlock(({ block }) => {
    committed += block.block.transactions.length;
    if (committed < options.minTransactions || collecting) return;
    if (options.pool.status().pending > 0) {
      disarm();
    } else if (timer === undefined) {
      timer = setTimeout(() => void release(), options.quietMs);
      timer.unref();
    }
  });
  const stopPending = options.bus.onPendingTx(disarm);
  return () => {
    disarm();
    stopBlocks();
    stopPending();
  };
}
