import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  LARGE_ANSWER_CHARS,
  releaseAfterHeavyWork,
  releaseMemory,
  type HeavyWorkReleaseOptions,
  type HeavyWorkWatch,
} from '../../src/daemon/heavy-work-release.js';
import { EventBus, type BlockCommittedEvent } from '../../src/daemon/events/event-bus.js';
import type { PooledTransaction } from '../../src/daemon/txpool/types.js';

const MIN_TRANSACTIONS = 100;
const MIN_ANSWER_CHARS = 4 * LARGE_ANSWER_CHARS;
const QUIET_MS = 1000;

/** A committed block event with `count` transactions; nothing else is read. */
function blockWith(count: number): BlockCommittedEvent {
  return {
    block: { block: { transactions: new Array(count) } },
    receipts: [],
    results: [],
  } as unknown as BlockCommittedEvent;
}

describe('releaseAfterHeavyWork', () => {
  let bus: EventBus;
  let pending: number;
  let admitting: number;
  let releases: number;
  let watch: HeavyWorkWatch;

  beforeEach(() => {
    jest.useFakeTimers();
    bus = new EventBus();
    pending = 0;
    admitting = 0;
    releases = 0;
    watch = watchWith();
  });

  /** A watch of `bus` and the pool that counts its releases. */
  const watchWith = (options: Partial<HeavyWorkReleaseOptions> = {}) =>
    releaseAfterHeavyWork({
      bus,
      pool: { status: () => ({ pending, queued: 0 }), admitting: () => admitting },
      release: async () => {
        releases += 1;
      },
      minTransactions: MIN_TRANSACTIONS,
      minAnswerChars: MIN_ANSWER_CHARS,
      quietMs: QUIET_MS,
      ...options,
    });

  afterEach(() => {
    watch.stop();
    jest.useRealTimers();
  });

  it('releases once the pool has stayed empty for the quiet time after a burst', async () => {
    bus.publishBlock(blockWith(60));
    bus.publishBlock(blockWith(60));
    await jest.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(releases).toBe(0);
    bus.publishBlock(blockWith(0));
    await jest.advanceTimersByTimeAsync(1);
    expect(releases).toBe(1);
    // The count starts over: empty blocks after the release release nothing more.
    bus.publishBlock(blockWith(0));
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(1);
  });

  it('does not release after fewer transactions than a burst', async () => {
    bus.publishBlock(blockWith(MIN_TRANSACTIONS - 1));
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);
  });

  it('waits while transactions are pending or keep arriving', async () => {
    pending = 5;
    bus.publishBlock(blockWith(MIN_TRANSACTIONS));
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);

    pending = 0;
    bus.publishBlock(blockWith(5));
    await jest.advanceTimersByTimeAsync(QUIET_MS / 2);
    bus.publishPendingTx({} as PooledTransaction);
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);

    bus.publishBlock(blockWith(1));
    await jest.advanceTimersByTimeAsync(QUIET_MS);
    expect(releases).toBe(1);
  });

  it('waits while admissions are under way, none of them pending yet', async () => {
    bus.publishBlock(blockWith(MIN_TRANSACTIONS));
    await jest.advanceTimersByTimeAsync(QUIET_MS / 2);
    // The next burst's first transactions are in sender recovery: nothing is pending yet.
    admitting = 40;
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);

    // They were all refused: no pending transaction, no block; the node is quiet again.
    admitting = 0;
    await jest.advanceTimersByTimeAsync(QUIET_MS);
    expect(releases).toBe(1);
  });

  it('releases after large answers once no other large one came for the quiet time', async () => {
    for (let served = 0; served < 3; served += 1) watch.answered(LARGE_ANSWER_CHARS + 1);
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);

    watch.answered(LARGE_ANSWER_CHARS);
    await jest.advanceTimersByTimeAsync(QUIET_MS / 2);
    watch.answered(LARGE_ANSWER_CHARS);
    await jest.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(releases).toBe(0);
    // Small answers do not postpone it.
    watch.answered(LARGE_ANSWER_CHARS - 1);
    await jest.advanceTimersByTimeAsync(1);
    expect(releases).toBe(1);
    watch.answered(LARGE_ANSWER_CHARS);
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(1);
  });

  it('does not count small answers, however many', async () => {
    for (let served = 0; served < 1000; served += 1) watch.answered(LARGE_ANSWER_CHARS - 1);
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);
  });

  it('waits for the pool to drain after large answers too', async () => {
    pending = 1;
    watch.answered(MIN_ANSWER_CHARS);
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);
    pending = 0;
    bus.publishBlock(blockWith(1));
    await jest.advanceTimersByTimeAsync(QUIET_MS);
    expect(releases).toBe(1);
  });

  it('after large answers, waits while requests are being answered; after a burst, not', async () => {
    watch.stop();
    let busy = true;
    watch = watchWith({ busy: () => busy });
    watch.answered(MIN_ANSWER_CHARS);
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);
    busy = false;
    await jest.advanceTimersByTimeAsync(QUIET_MS);
    expect(releases).toBe(1);

    busy = true;
    bus.publishBlock(blockWith(MIN_TRANSACTIONS));
    await jest.advanceTimersByTimeAsync(QUIET_MS);
    expect(releases).toBe(2);
  });

  it('raises the heap growth while a burst waits in the pool, until a block empties it', async () => {
    watch.stop();
    const raised: string[] = [];
    watch = watchWith({
      burstPending: 50,
      raiseHeapGrowth: () => {
        raised.push('raised');
        return () => raised.push('ended');
      },
    });
    pending = 49;
    bus.publishPendingTx({} as PooledTransaction);
    expect(raised).toEqual([]);
    pending = 50;
    bus.publishPendingTx({} as PooledTransaction);
    pending = 400;
    bus.publishPendingTx({} as PooledTransaction);
    expect(raised).toEqual(['raised']);
    // Blocks that leave transactions waiting keep it raised.
    pending = 100;
    bus.publishBlock(blockWith(300));
    expect(raised).toEqual(['raised']);
    pending = 0;
    bus.publishBlock(blockWith(100));
    expect(raised).toEqual(['raised', 'ended']);
    // The release that follows the burst runs under the usual growth.
    await jest.advanceTimersByTimeAsync(QUIET_MS);
    expect(releases).toBe(1);
    expect(raised).toEqual(['raised', 'ended']);

    pending = 60;
    bus.publishPendingTx({} as PooledTransaction);
    watch.stop();
    expect(raised).toEqual(['raised', 'ended', 'raised', 'ended']);
  });

  it('stops watching when told to', async () => {
    bus.publishBlock(blockWith(MIN_TRANSACTIONS));
    watch.stop();
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(releases).toBe(0);
  });
});

describe('releaseMemory', () => {
  it('collects the heap, then trims malloc, and says so', async () => {
    const order: string[] = [];
    const release = releaseMemory({
      collect: async () => {
        order.push('collect');
      },
      os: {
        trimMalloc: () => {
          order.push('trim');
          return true;
        },
      },
    });
    const details = await release();
    expect(order).toEqual(['collect', 'trim']);
    expect(details).toMatchObject({ mallocTrimReleased: true });
    expect(details.rssMiB).toMatch(/ -> .* \(collected\) -> /);
  });

  it('says when there is no addon', async () => {
    const details = await releaseMemory({ collect: async () => undefined, os: undefined })();
    expect(details).toMatchObject({ osMemory: 'absent' });
  });
});
