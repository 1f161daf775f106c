import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { releaseAfterBursts } from '../../src/daemon/burst-release.js';
import { EventBus, type BlockCommittedEvent } from '../../src/daemon/events/event-bus.js';
import type { PooledTransaction } from '../../src/daemon/txpool/types.js';

const MIN_TRANSACTIONS = 100;
const QUIET_MS = 1000;

/** A committed block event with `count` transactions; nothing else is read. */
function blockWith(count: number): BlockCommittedEvent {
  return {
    block: { block: { transactions: new Array(count) } },
    receipts: [],
    results: [],
  } as unknown as BlockCommittedEvent;
}

describe('releaseAfterBursts', () => {
  let bus: EventBus;
  let pending: number;
  let collections: number;
  let stop: () => void;

  beforeEach(() => {
    jest.useFakeTimers();
    bus = new EventBus();
    pending = 0;
    collections = 0;
    stop = releaseAfterBursts({
      bus,
      pool: { status: () => ({ pending, queued: 0 }) },
      collect: async () => {
        collections += 1;
      },
      minTransactions: MIN_TRANSACTIONS,
      quietMs: QUIET_MS,
    });
  });

  afterEach(() => {
    stop();
    jest.useRealTimers();
  });

  it('collects once the pool has stayed empty for the quiet time after a burst', async () => {
    bus.publishBlock(blockWith(60));
    bus.publishBlock(blockWith(60));
    await jest.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(collections).toBe(0);
    bus.publishBlock(blockWith(0));
    await jest.advanceTimersByTimeAsync(1);
    expect(collections).toBe(1);
    // The count starts over: empty blocks after the release collect nothing more.
    bus.publishBlock(blockWith(0));
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(collections).toBe(1);
  });

  it('does not collect after fewer transactions than a burst', async () => {
    bus.publishBlock(blockWith(MIN_TRANSACTIONS - 1));
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(collections).toBe(0);
  });

  it('waits while transactions are pending or keep arriving', async () => {
    pending = 5;
    bus.publishBlock(blockWith(MIN_TRANSACTIONS));
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(collections).toBe(0);

    pending = 0;
    bus.publishBlock(blockWith(5));
    await jest.advanceTimersByTimeAsync(QUIET_MS / 2);
    bus.publishPendingTx({} as PooledTransaction);
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(collections).toBe(0);

    bus.publishBlock(blockWith(1));
    await jest.advanceTimersByTimeAsync(QUIET_MS);
    expect(collections).toBe(1);
  });

  it('stops watching when told to', async () => {
    bus.publishBlock(blockWith(MIN_TRANSACTIONS));
    stop();
    await jest.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(collections).toBe(0);
  });
});
