import { describe, expect, it } from '@jest/globals';
import { createZeroAddress } from '@ethereumjs/util';
import { SenderTransactions } from '../../src/daemon/txpool/sender-transactions.js';
import type { PoolEntry } from '../../src/daemon/txpool/sender-transactions.js';
import type { PooledTransaction } from '../../src/daemon/txpool/types.js';

/** An entry with just what SenderTransactions reads: its nonce and its cost. */
function entry(nonce: bigint, cost: bigint): PoolEntry {
  return {
    pooled: { nonce } as PooledTransaction,
    fees: { feeCap: 1n, tipCap: 1n },
    cost,
    seq: Number(nonce),
    announced: false,
  };
}

const nonces = (entries: PoolEntry[]) => entries.map((e) => e.pooled.nonce);

describe('SenderTransactions.applyState', () => {
  it('changes nothing when given the state it last checked against, and re-checks on any change', () => {
    const account = new SenderTransactions(createZeroAddress(), 0n);
    for (const nonce of [0n, 1n, 3n]) account.put(entry(nonce, 10n * (nonce + 1n)));
    expect(nonces(account.applyState(0n, 100n).dropped)).toEqual([]);
    expect(account.pendingCount).toBe(2);

    expect(account.applyState(0n, 100n)).toEqual({ dropped: [], promoted: [] });
    expect(account.pendingCount).toBe(2);

    // The balance falls: the entry costing 40 goes, and nothing else.
    expect(nonces(account.applyState(0n, 30n).dropped)).toEqual([3n]);
    expect(nonces(account.pending())).toEqual([0n, 1n]);

    // Nonce 0 was mined: it leaves, the run now starts at 1, and a later put extends it.
    expect(nonces(account.applyState(1n, 30n).dropped)).toEqual([0n]);
    expect(nonces(account.pending())).toEqual([1n]);
    expect(nonces(account.put(entry(2n, 30n)).promoted)).toEqual([2n]);
    expect(account.applyState(1n, 30n)).toEqual({ dropped: [], promoted: [] });
    expect(nonces(account.pending())).toEqual([1n, 2n]);
  });
});
