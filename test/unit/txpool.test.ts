import { beforeAll, describe, expect, it } from '@jest/globals';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createBlob4844Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { TransactionRejectedError } from '../../src/shared/errors.js';
import { DEFAULT_POOL_LIMITS, TxPool } from '../../src/daemon/txpool/txpool.js';
import type { PooledTransaction } from '../../src/daemon/txpool/types.js';
import {
  CHAIN_ID,
  ETHER,
  FakeState,
  GWEI,
  RECIPIENT,
  address,
  common,
  key,
  newPool,
  signTx,
} from './txpool-fixtures.js';

beforeAll(async () => {
  await initCrypto();
});

const nonces = (txs: readonly PooledTransaction[] | undefined): bigint[] =>
  (txs ?? []).map((p) => p.nonce);

async function rejection(promise: Promise<unknown>): Promise<TransactionRejectedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TransactionRejectedError);
  return error as TransactionRejectedError;
}

describe('pending and queued', () => {
  it('queues nonce gaps and promotes them when the gap fills', async () => {
    const state = new FakeState();
    const pool = newPool(state);
    const announced: bigint[] = [];
    pool.onPending((p) => announced.push(p.nonce));

    await pool.add(signTx(0, { nonce: 0n }));
    await pool.add(signTx(0, { nonce: 2n }));
    await pool.add(signTx(0, { nonce: 3n }));
    const sender = address(0).toString();
    expect(nonces(pool.pendingBySender().get(sender))).toEqual([0n]);
    expect(nonces(pool.queuedBySender().get(sender))).toEqual([2n, 3n]);
    expect(pool.status()).toEqual({ pending: 1, queued: 2 });
    expect(await pool.pendingNonce(address(0))).toBe(1n);
    expect(announced).toEqual([0n]);

    await pool.add(signTx(0, { nonce: 1n }));
    expect(nonces(pool.pendingBySender().get(sender))).toEqual([0n, 1n, 2n, 3n]);
    expect(pool.queuedBySender().size).toBe(0);
    expect(pool.status()).toEqual({ pending: 4, queued: 0 });
    expect(await pool.pendingNonce(address(0))).toBe(4n);
    expect(announced).toEqual([0n, 1n, 2n, 3n]);
  });

  it('keeps the encoding of each transaction: the bytes it came as, or its serialization', async () => {
    const pool = newPool(new FakeState());
    const received = signTx(0, { nonce: 0n });
    const legacy = signTx(0, { nonce: 1n, gasPrice: 20n * GWEI });
    const pooled = [await pool.add(received, received.serialize()), await pool.add(legacy)];
    for (const [index, tx] of [received, legacy].entries()) {
      expect(pooled[index].encoded).toEqual(tx.serialize());
    }
  });

  it('gives the event loop a turn between admissions when asked, in arrival order', async () => {
    let pauses = 0;
    const pool = new TxPool({
      state: new FakeState(),
      chainId: CHAIN_ID,
      minGasPrice: GWEI,
      limits: DEFAULT_POOL_LIMITS,
      pause: () => {
        pauses++;
        return new Promise((resolve) => setImmediate(resolve));
      },
    });
    const announced: bigint[] = [];
    pool.onPending((p) => announced.push(p.nonce));
    // Sent together, last nonce first: the gaps fill as the earlier ones arrive.
    const txs = [3n, 2n, 1n, 0n].map((nonce) => signTx(0, { nonce }));
    await Promise.all(txs.map((tx) => pool.add(tx)));
    expect(pauses).toBe(txs.length);
    expect(announced).toEqual([0n, 1n, 2n, 3n]);
    expect(pool.status()).toEqual({ pending: 4, queued: 0 });
  });

  it('counts admissions under way until each is decided, refused ones included', async () => {
    const recoveries: Array<() => void> = [];
    const pool = newPool(
      new FakeState(),
      {},
      {
        prepare: () => new Promise<void>((resolve) => recoveries.push(resolve)),
      },
    );
    const admitted = pool.add(signTx(0, { nonce: 0n }));
    const refused = pool.add(signTx(1, { nonce: 0n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }));
    expect(pool.admitting()).toBe(2);
    expect(pool.status()).toEqual({ pending: 0, queued: 0 });

    recoveries.forEach((recovered) => recovered());
    await admitted;
    await rejection(refused);
    expect(pool.admitting()).toBe(0);
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
  });

  it('counts from the state nonce', async () => {
    const state = new FakeState();
    state.setNonce(1, 5n);
    const pool = newPool(state);
    expect(await pool.pendingNonce(address(1))).toBe(5n);
    await pool.add(signTx(1, { nonce: 6n }));
    expect(pool.status()).toEqual({ pending: 0, queued: 1 });
    await pool.add(signTx(1, { nonce: 5n }));
    expect(pool.status()).toEqual({ pending: 2, queued: 0 });
    expect(await pool.pendingNonce(address(1))).toBe(7n);
  });

  it('keeps announcing when a listener throws, and stops after unsubscribe', async () => {
    const errors: unknown[] = [];
    const state = new FakeState();
    const pool = new TxPool({
      state,
      chainId: CHAIN_ID,
      minGasPrice: GWEI,
      limits: DEFAULT_POOL_LIMITS,
      onListenerError: (e) => errors.push(e),
    });
    const seen: bigint[] = [];
    pool.onPending(() => {
      throw new Error('listener broke');
    });
    const unsubscribe = pool.onPending((p) => seen.push(p.nonce));
    await pool.add(signTx(0, { nonce: 0n }));
    unsubscribe();
    await pool.add(signTx(0, { nonce: 1n }));
    expect(seen).toEqual([0n]);
    expect(errors).toHaveLength(2);
    expect(pool.status().pending).toBe(2);
  });
});

describe('replacement', () => {
  it('accepts a 10% bump of fee cap and tip, refuses 9%', async () => {
    const pool = newPool(new FakeState());
    const original = await pool.add(
      signTx(0, { nonce: 0n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 10n * GWEI }),
    );
    const nineteen = signTx(0, {
      nonce: 0n,
      maxFeePerGas: 109n * GWEI,
      maxPriorityFeePerGas: 11n * GWEI,
    });
    expect((await rejection(pool.add(nineteen))).message).toMatch(
      /^replacement transaction underpriced/,
    );
    const tipOnlyNine = signTx(0, {
      nonce: 0n,
      maxFeePerGas: 110n * GWEI,
      maxPriorityFeePerGas: 10_900_000_000n,
    });
    expect((await rejection(pool.add(tipOnlyNine))).message).toMatch(
      /^replacement transaction underpriced/,
    );

    const bumped = await pool.add(
      signTx(0, { nonce: 0n, maxFeePerGas: 110n * GWEI, maxPriorityFeePerGas: 11n * GWEI }),
    );
    expect(pool.getByHash(original.hashHex)).toBeUndefined();
    expect(pool.getByHash(bumped.hashHex)).toBe(bumped);
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
    expect(pool.executable()).toEqual([bumped]);
  });

  it('applies the bump to a legacy gas price and to queued transactions', async () => {
    const pool = newPool(new FakeState());
    await pool.add(signTx(0, { nonce: 3n, gasPrice: 20n * GWEI }));
    await rejection(pool.add(signTx(0, { nonce: 3n, gasPrice: 21n * GWEI })));
    const replaced = await pool.add(signTx(0, { nonce: 3n, gasPrice: 22n * GWEI }));
    expect(pool.queuedBySender().get(address(0).toString())).toEqual([replaced]);
    expect(pool.status()).toEqual({ pending: 0, queued: 1 });
  });

  it('announces a pending replacement', async () => {
    const pool = newPool(new FakeState());
    const seen: string[] = [];
    pool.onPending((p) => seen.push(p.hashHex));
    const first = await pool.add(signTx(0, { nonce: 0n, gasPrice: 10n * GWEI }));
    const second = await pool.add(signTx(0, { nonce: 0n, gasPrice: 11n * GWEI }));
    expect(seen).toEqual([first.hashHex, second.hashHex]);
  });
});

describe('admission checks', () => {
  const state = new FakeState();

  it.each([
    [
      'nonce too low',
      () => {
        state.setNonce(2, 4n);
        return signTx(2, { nonce: 3n });
      },
      'nonce too low: next nonce 4, tx nonce 3',
    ],
    [
      'intrinsic gas',
      () => signTx(0, { nonce: 0n, gasLimit: 20_999n }),
      'intrinsic gas too low: gas 20999, minimum needed 21000',
    ],
    [
      'block gas limit',
      () => signTx(0, { nonce: 0n, gasLimit: 30_000_001n }),
      'exceeds block gas limit: gas 30000001, block gas limit 30000000',
    ],
    [
      'minimum gas price',
      () => signTx(0, { nonce: 0n, gasPrice: GWEI - 1n }),
      'transaction underpriced: gas price 999999999 below minimum gas price 1000000000',
    ],
    [
      'base fee (fee market)',
      () => {
        state.baseFee = 5n * GWEI;
        return signTx(0, { nonce: 0n, maxFeePerGas: 4n * GWEI, maxPriorityFeePerGas: GWEI });
      },
      'transaction underpriced: max fee per gas 4000000000 below next block base fee 5000000000',
    ],
    [
      'base fee (legacy)',
      () => {
        state.baseFee = 5n * GWEI;
        return signTx(0, { nonce: 0n, gasPrice: 4n * GWEI });
      },
      'transaction underpriced: gas price 4000000000 below next block base fee 5000000000',
    ],
    [
      'insufficient funds',
      () => {
        state.setBalance(3, 21_000n * 10n * GWEI);
        return signTx(3, { nonce: 0n, value: 5n });
      },
      'insufficient funds for gas * price + value: balance 210000000000000, tx cost 210000000000005, overshot 5',
    ],
    [
      'wrong chain id (typed)',
      () =>
        signTx(
          0,
          { nonce: 0n },
          createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Prague }),
        ),
      'invalid chain id: have 1 want 9000',
    ],
    [
      'wrong chain id (legacy EIP-155)',
      () =>
        signTx(
          0,
          { nonce: 0n, gasPrice: 2n * GWEI },
          createCustomCommon({ chainId: 7 }, Mainnet, { hardfork: Hardfork.Prague }),
        ),
      'invalid chain id: have 7 want 9000',
    ],
    [
      'unsigned',
      () =>
        createLegacyTx({ nonce: 0n, gasLimit: 21_000n, gasPrice: GWEI, to: RECIPIENT }, { common }),
      'invalid sender: transaction is not signed',
    ],
    [
      'unrecoverable signature',
      () =>
        createFeeMarket1559Tx(
          {
            nonce: 0n,
            gasLimit: 21_000n,
            maxFeePerGas: 2n * GWEI,
            to: RECIPIENT,
            v: 0n,
            // r = 5 is not the x coordinate of any curve point, so no public key recovers.
            r: 5n,
            s: 1n,
          },
          { common },
        ),
      'invalid sender',
    ],
    [
      'blob transaction',
      () =>
        createBlob4844Tx(
          {
            to: RECIPIENT,
            blobVersionedHashes: [new Uint8Array(32).fill(1, 0, 1)],
            maxFeePerBlobGas: 1n,
            maxFeePerGas: 2n * GWEI,
            gasLimit: 21_000n,
          },
          { common },
        ).sign(key(0)),
      'transaction type not supported: this node does not accept blob transactions (type 3)',
    ],
    [
      'oversized',
      () => signTx(0, { nonce: 0n, data: new Uint8Array(128 * 1024), gasLimit: 29_000_000n }),
      /^oversized data: transaction size 131\d{3} bytes, limit 131072$/,
    ],
  ])('refuses %s', async (_name, build, expected) => {
    state.baseFee = GWEI;
    const pool = newPool(state);
    const error = await rejection(pool.add(build()));
    if (typeof expected === 'string') expect(error.message).toBe(expected);
    else expect(error.message).toMatch(expected);
    expect(pool.status()).toEqual({ pending: 0, queued: 0 });
  });

  it('refuses a transaction it already holds', async () => {
    const pool = newPool(new FakeState());
    const tx = signTx(0, { nonce: 0n });
    const pooled = await pool.add(tx);
    expect((await rejection(pool.add(tx))).message).toBe(`already known: ${pooled.hashHex}`);
    const concurrent = signTx(1, { nonce: 0n });
    const results = await Promise.allSettled([pool.add(concurrent), pool.add(concurrent)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('limits queued transactions per sender, never the executable ones', async () => {
    const pool = newPool(new FakeState(), { perSenderQueued: 2 });
    for (const nonce of [0n, 5n, 6n]) await pool.add(signTx(0, { nonce }));
    const error = await rejection(pool.add(signTx(0, { nonce: 7n })));
    expect(error.message).toBe(
      `txpool is full: sender ${address(0).toString()} already has 2 queued transactions (per-sender queue limit 2)`,
    );
    for (const nonce of [1n, 2n, 3n]) await pool.add(signTx(0, { nonce }));
    expect(pool.status()).toEqual({ pending: 4, queued: 2 });
    await pool.add(signTx(0, { nonce: 4n }));
    expect(pool.status()).toEqual({ pending: 7, queued: 0 });
    await pool.add(signTx(0, { nonce: 8n }));
    expect(pool.status()).toEqual({ pending: 7, queued: 1 });
  });
});

describe('global limit', () => {
  it('evicts the lowest-ranked last transaction of another sender, or refuses', async () => {
    const pool = newPool(new FakeState(), { globalSlots: 3 });
    const cheapQueued = await pool.add(signTx(0, { nonce: 1n, maxFeePerGas: 2n * GWEI }));
    await pool.add(signTx(1, { nonce: 0n, maxFeePerGas: 3n * GWEI }));
    const pendingHead = await pool.add(signTx(2, { nonce: 0n, maxFeePerGas: 5n * GWEI }));

    // A queued newcomer must pay more than the cheapest queued transaction.
    const same = signTx(3, { nonce: 1n, maxFeePerGas: 2n * GWEI });
    expect((await rejection(pool.add(same))).message).toBe(
      'txpool is full: 3 transactions (global limit 3)',
    );

    // A pending newcomer outranks any queued one, whatever it pays.
    await pool.add(signTx(3, { nonce: 0n, maxFeePerGas: 2n * GWEI }));
    expect(pool.getByHash(cheapQueued.hashHex)).toBeUndefined();
    expect(pool.status()).toEqual({ pending: 3, queued: 0 });

    // Among pending ones, only a higher fee cap evicts, and only a sender's last nonce goes.
    await rejection(pool.add(signTx(4, { nonce: 0n, maxFeePerGas: 2n * GWEI })));
    const rich = await pool.add(signTx(4, { nonce: 0n, maxFeePerGas: 4n * GWEI }));
    expect(pool.getByHash(rich.hashHex)).toBe(rich);
    expect(pool.getByHash(pendingHead.hashHex)).toBe(pendingHead);
    expect(pool.status()).toEqual({ pending: 3, queued: 0 });
    expect(pool.pendingBySender().has(address(3).toString())).toBe(false);
  });

  it('never evicts from the newcomer\u2019s own sender', async () => {
    const pool = newPool(new FakeState(), { globalSlots: 2 });
    await pool.add(signTx(0, { nonce: 0n, maxFeePerGas: 2n * GWEI }));
    await pool.add(signTx(0, { nonce: 1n, maxFeePerGas: 2n * GWEI }));
    await rejection(pool.add(signTx(0, { nonce: 2n, maxFeePerGas: 50n * GWEI })));
  });
});

describe('executable order', () => {
  it('orders senders by effective tip, ties by arrival, each sender by nonce', async () => {
    const state = new FakeState();
    state.baseFee = 10n * GWEI;
    const pool = newPool(state);
    const a0 = await pool.add(
      signTx(0, { nonce: 0n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI }),
    );
    const a1 = await pool.add(
      signTx(0, { nonce: 1n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 50n * GWEI }),
    );
    // Legacy: tip is gas price minus base fee = 5 gwei.
    const b0 = await pool.add(signTx(1, { nonce: 0n, gasPrice: 15n * GWEI }));
    // Capped by fee cap: min(13, 13 - 10) = 3 gwei.
    const c0 = await pool.add(
      signTx(2, { nonce: 0n, maxFeePerGas: 13n * GWEI, maxPriorityFeePerGas: 13n * GWEI }),
    );
    const d0 = await pool.add(
      signTx(3, { nonce: 0n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 3n * GWEI }),
    );
    await pool.add(
      signTx(4, { nonce: 1n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 90n * GWEI }),
    );

    const order = () => pool.executable().map((p) => p.hashHex);
    expect(order()).toEqual([b0, c0, d0, a0, a1].map((p) => p.hashHex));

    // A higher base fee changes the order and leaves out what cannot pay it; a0 and b0 now
    // both tip 1 gwei and a0 came first, which lets a1 (tip 50) in before b0.
    state.baseFee = 14n * GWEI;
    expect(order()).toEqual([d0, a0, a1, b0].map((p) => p.hashHex));
  });
});

describe('block commits', () => {
  it('removes included, drops stale and unaffordable, promotes and demotes', async () => {
    const state = new FakeState();
    const pool = newPool(state);
    const announced: string[] = [];
    pool.onPending((p) => announced.push(p.hashHex));

    const a = await Promise.all([0n, 1n, 2n, 3n].map((nonce) => pool.add(signTx(0, { nonce }))));
    const b5 = await pool.add(signTx(1, { nonce: 5n }));
    const c = await Promise.all(
      [0n, 1n, 2n].map((nonce) => pool.add(signTx(2, { nonce, value: nonce === 1n ? ETHER : 1n }))),
    );
    const b0 = await pool.add(signTx(1, { nonce: 0n }));
    expect(pool.status()).toEqual({ pending: 8, queued: 1 });

    // The block included a0 and b0; a1 was also used (say by another node's copy), b jumped to 5,
    // c spent most of its balance elsewhere so c1 (1 ether) is no longer affordable.
    state.setNonce(0, 2n);
    state.setNonce(1, 5n);
    state.setNonce(2, 1n);
    state.setBalance(2, ETHER / 2n);
    announced.length = 0;
    await pool.onBlockCommitted([a[0].hashHex, b0.hashHex, c[0].hashHex], state);

    expect(pool.getByHash(a[0].hashHex)).toBeUndefined();
    expect(pool.getByHash(a[1].hashHex)).toBeUndefined();
    expect(nonces(pool.pendingBySender().get(address(0).toString()))).toEqual([2n, 3n]);
    expect(pool.pendingBySender().get(address(1).toString())).toEqual([b5]);
    expect(announced).toEqual([b5.hashHex]);
    expect(pool.getByHash(c[1].hashHex)).toBeUndefined();
    expect(pool.pendingBySender().has(address(2).toString())).toBe(false);
    expect(pool.queuedBySender().get(address(2).toString())).toEqual([c[2]]);
    expect(pool.status()).toEqual({ pending: 3, queued: 1 });
    expect(await pool.pendingNonce(address(0))).toBe(4n);
    expect(await pool.pendingNonce(address(2))).toBe(1n);
  });

  it('drop() demotes the later nonces of the sender', async () => {
    const pool = newPool(new FakeState());
    const txs = await Promise.all([0n, 1n, 2n].map((nonce) => pool.add(signTx(0, { nonce }))));
    pool.drop(txs[1].hashHex);
    expect(pool.executable()).toEqual([txs[0]]);
    expect(pool.queuedBySender().get(address(0).toString())).toEqual([txs[2]]);
    expect(pool.status()).toEqual({ pending: 1, queued: 1 });
    pool.drop(txs[1].hashHex);
    expect(pool.status()).toEqual({ pending: 1, queued: 1 });
  });

  it('pulls and commits a block of 4000 transactions in nonce order', async () => {
    const state = new FakeState();
    const pool = newPool(state);
    const senders = 80;
    const perSender = 50;
    const txs = [];
    for (let s = 0; s < senders; s++) {
      for (let n = 0; n < perSender; n++) {
        txs.push(signTx(s, { nonce: BigInt(n), maxPriorityFeePerGas: BigInt(1 + (s % 7)) * GWEI }));
      }
    }
    await Promise.all(txs.map((tx) => pool.add(tx)));
    expect(pool.status()).toEqual({ pending: senders * perSender, queued: 0 });

    const block = pool.executable();
    expect(block).toHaveLength(senders * perSender);
    const lastNonce = new Map<string, bigint>();
    for (const pooled of block) {
      expect(pooled.nonce).toBe((lastNonce.get(pooled.senderHex) ?? -1n) + 1n);
      lastNonce.set(pooled.senderHex, pooled.nonce);
    }
    for (let s = 0; s < senders; s++) state.setNonce(s, BigInt(perSender));
    await pool.onBlockCommitted(
      block.map((p) => p.hashHex),
      state,
    );
    expect(pool.status()).toEqual({ pending: 0, queued: 0 });
    expect(pool.executable()).toEqual([]);
  });
});

describe('queued lifetime', () => {
  it('drops queued transactions older than the lifetime and keeps pending and younger ones', async () => {
    let clock = 0;
    const pool = new TxPool({
      state: new FakeState(),
      chainId: CHAIN_ID,
      minGasPrice: GWEI,
      limits: { ...DEFAULT_POOL_LIMITS, queuedLifetimeMs: 1_000 },
      now: () => clock,
    });
    const old = await pool.add(signTx(0, { nonce: 2n }));
    await pool.add(signTx(0, { nonce: 0n }));
    clock = 600;
    await pool.add(signTx(1, { nonce: 5n }));
    expect(await pool.dropExpiredQueued()).toEqual([]);

    clock = 1_000;
    expect(await pool.dropExpiredQueued()).toEqual([old.hashHex]);
    expect(pool.getByHash(old.hashHex)).toBeUndefined();
    expect(pool.status()).toEqual({ pending: 1, queued: 1 });
    expect(nonces(pool.pendingBySender().get(address(0).toString()))).toEqual([0n]);

    clock = 1_600;
    expect(await pool.dropExpiredQueued()).toHaveLength(1);
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
    // The dropped nonce can be sent again and is admitted afresh.
    await pool.add(signTx(0, { nonce: 2n }));
    expect(pool.status()).toEqual({ pending: 1, queued: 1 });
  });
});
