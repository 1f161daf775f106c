import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createLegacyTx,
  createTxFromRLP,
} from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { MessageChannel } from 'node:worker_threads';
import { serveRecoveries } from '../../src/daemon/crypto/recovery-service.js';
import { senderAddressOf } from '../../src/daemon/crypto/sender-address.js';
import {
  IN_PROCESS_WHILE_STARTING,
  SenderRecovery,
} from '../../src/daemon/crypto/sender-recovery.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import type { SenderRecoverer } from '../../src/daemon/txpool/types.js';
import { FakeState, RECIPIENT, address, common, key, newPool, signTx } from './txpool-fixtures.js';

/** The compiled worker: a worker thread runs JavaScript, so these tests need `npm run build`. */
const WORKER_URL = new URL('../../dist/daemon/crypto/recovery-worker.js', import.meta.url);

/** A freshly decoded copy, with nothing recovered or cached yet. */
const fresh = (tx: TypedTransaction): TypedTransaction =>
  createTxFromRLP(tx.serialize(), { common });

/** The same transaction with an `r` no signature can have (above the curve's order). */
function withInvalidR(tx: TypedTransaction): TypedTransaction {
  const decoded = createTxFromRLP(tx.serialize(), { common, freeze: false });
  Object.assign(decoded, { r: 2n ** 256n - 1n });
  return createTxFromRLP(decoded.serialize(), { common });
}

describe('sender recovery on worker threads', () => {
  let recovery: SenderRecovery | undefined;

  beforeAll(() => initCrypto());
  afterEach(() => recovery?.close());

  it('caches the same sender the library recovers, for every transaction of a burst', async () => {
    recovery = new SenderRecovery({ workerUrl: WORKER_URL, threads: 2 });
    await recovery.started();
    const txs = Array.from({ length: 50 }, (_, i) =>
      fresh(signTx(i % 5, { nonce: BigInt(i), gasPrice: i % 2 === 0 ? 10n ** 9n : undefined })),
    );
    await Promise.all(txs.map((tx) => recovery!.prepare(tx, tx.serialize())));
    for (const [i, tx] of txs.entries()) {
      expect(tx.cache.senderPubKey).toBeDefined();
      expect(senderAddressOf(tx).equals(address(i % 5))).toBe(true);
      expect(tx.getSenderAddress().equals(address(i % 5))).toBe(true);
      expect(tx.cache.senderPubKey).toEqual(fresh(tx).getSenderPublicKey());
    }
  });

  it("recovers the library's sender for every type, EIP-155 and pre-EIP-155 legacy too", async () => {
    recovery = new SenderRecovery({ workerUrl: WORKER_URL, threads: 1 });
    await recovery.started();
    const homestead = createCustomCommon({ chainId: 9000 }, Mainnet, {
      hardfork: Hardfork.Homestead,
    });
    const otherChain = createCustomCommon({ chainId: 1337 }, Mainnet, {
      hardfork: Hardfork.Prague,
    });
    const fields = { nonce: 0n, to: RECIPIENT, gasLimit: 30_000n, gasPrice: 10n ** 9n };
    const txs = [
      createLegacyTx(fields, { common: homestead }).sign(key(1)),
      createLegacyTx(fields, { common: otherChain }).sign(key(2)),
      createAccessList2930Tx({ ...fields, accessList: [] }, { common }).sign(key(3)),
      signTx(4, { nonce: 0n }),
      createEOACode7702Tx(
        {
          nonce: 0n,
          to: RECIPIENT,
          gasLimit: 100_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
          authorizationList: [
            {
              chainId: '0x2328',
              address: RECIPIENT.toString(),
              nonce: '0x1',
              yParity: '0x1',
              r: `0x${'11'.repeat(32)}`,
              s: `0x${'22'.repeat(32)}`,
            },
          ],
        },
        { common },
      ).sign(key(5)),
    ].map((tx) => createTxFromRLP(tx.serialize(), { common: tx.common }));
    await Promise.all(txs.map((tx) => recovery!.prepare(tx, tx.serialize())));
    txs.forEach((tx, index) => {
      const again = createTxFromRLP(tx.serialize(), { common: tx.common });
      expect(tx.cache.senderPubKey).toEqual(again.getSenderPublicKey());
      expect(senderAddressOf(tx).equals(address(index + 1))).toBe(true);
    });
  });

  it('sends recoveries to a lent port while it is open, quietly, and starts no worker', async () => {
    const errors: unknown[] = [];
    recovery = new SenderRecovery({
      workerUrl: new URL('./no-such-worker.js', WORKER_URL),
      threads: 0,
      onWorkerError: (error) => errors.push(error),
    });
    const channel = new MessageChannel();
    serveRecoveries(channel.port2);
    recovery.lend(channel.port1);
    await recovery.started();
    const served = fresh(signTx(3, { nonce: 0n }));
    await recovery.prepare(served, served.serialize());
    expect(served.cache.senderPubKey).toEqual(fresh(served).getSenderPublicKey());

    channel.port2.close();
    await new Promise((resolve) => channel.port1.once('close', resolve));
    const after = fresh(signTx(3, { nonce: 1n }));
    await recovery.prepare(after, after.serialize());
    expect(after.cache.senderPubKey).toBeUndefined();
    expect(after.getSenderAddress().equals(address(3))).toBe(true);
    expect(errors).toEqual([]);
  });

  it('recovers the first transactions in-process while a lender starts, then waits for it', async () => {
    recovery = new SenderRecovery({ workerUrl: WORKER_URL, threads: 0 });
    let wakes = 0;
    recovery.whenWanted(() => wakes++);
    const txs = Array.from({ length: IN_PROCESS_WHILE_STARTING + 8 }, (_, i) =>
      fresh(signTx(i % 5, { nonce: BigInt(i) })),
    );
    const settled = new Set<number>();
    const prepared = txs.map((tx, i) =>
      recovery!.prepare(tx, tx.serialize()).then(() => settled.add(i)),
    );
    await Promise.all(prepared.slice(0, IN_PROCESS_WHILE_STARTING));
    await new Promise(setImmediate);
    expect(settled.size).toBe(IN_PROCESS_WHILE_STARTING);
    expect(wakes).toBe(txs.length);

    const channel = new MessageChannel();
    serveRecoveries(channel.port2);
    recovery.lend(channel.port1);
    await Promise.all(prepared);
    for (const [i, tx] of txs.entries()) {
      const waited = i >= IN_PROCESS_WHILE_STARTING;
      expect(tx.cache.senderPubKey === undefined).toBe(!waited);
      expect(senderAddressOf(tx).equals(address(i % 5))).toBe(true);
    }
    channel.port2.close();
  });

  it('stops waiting for a lender that lends nothing within the wait (STARTING_WAIT_MS)', async () => {
    recovery = new SenderRecovery({ workerUrl: WORKER_URL, threads: 0 });
    recovery.whenWanted(() => undefined);
    const txs = Array.from({ length: IN_PROCESS_WHILE_STARTING + 2 }, (_, i) =>
      fresh(signTx(0, { nonce: BigInt(i) })),
    );
    await Promise.all(txs.map((tx) => recovery!.prepare(tx, tx.serialize())));
    expect(txs.every((tx) => tx.cache.senderPubKey === undefined)).toBe(true);
    // Not waited for again: the next transaction goes in-process at once.
    const next = fresh(signTx(0, { nonce: 99n }));
    let done = false;
    const preparing = recovery.prepare(next, next.serialize()).then(() => (done = true));
    await new Promise(setImmediate);
    expect(done).toBe(true);
    await preparing;
  });

  it('leaves a signature it cannot recover to the library, which refuses it', async () => {
    recovery = new SenderRecovery({ workerUrl: WORKER_URL, threads: 1 });
    await recovery.started();
    const tx = withInvalidR(signTx(0, { nonce: 0n }));
    await recovery.prepare(tx, tx.serialize());
    expect(tx.cache.senderPubKey).toBeUndefined();
    expect(() => tx.getSenderAddress()).toThrow(/Invalid Signature/);
  });

  it('falls back to in-process recovery when its worker cannot start, and says so', async () => {
    const errors: unknown[] = [];
    recovery = new SenderRecovery({
      workerUrl: new URL('./no-such-worker.js', WORKER_URL),
      threads: 1,
      onWorkerError: (error) => errors.push(error),
    });
    await recovery.started();
    const tx = fresh(signTx(0, { nonce: 0n }));
    await recovery.prepare(tx, tx.serialize());
    expect(tx.cache.senderPubKey).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(tx.getSenderAddress().equals(address(0))).toBe(true);
  });

  it('lets waiting transactions go ahead when closed', async () => {
    recovery = new SenderRecovery({ workerUrl: WORKER_URL, threads: 1 });
    await recovery.started();
    const first = fresh(signTx(0, { nonce: 0n }));
    const waiting = recovery.prepare(first, first.serialize());
    await recovery.close();
    await expect(waiting).resolves.toBeUndefined();
    const tx = fresh(signTx(0, { nonce: 1n }));
    await recovery.prepare(tx, tx.serialize());
    expect(tx.cache.senderPubKey).toBeUndefined();
  });
});

/** A recoverer whose answers the test releases one by one, in any order. */
class HeldRecoverer implements SenderRecoverer {
  readonly held: Array<() => void> = [];

  prepare(): Promise<void> {
    return new Promise((resolve) => this.held.push(resolve));
  }
}

describe('the pool with a sender recoverer', () => {
  beforeAll(() => initCrypto());

  it('admits in arrival order whatever order the recoveries finish in', async () => {
    const recoverer = new HeldRecoverer();
    const pool = newPool(new FakeState(), {}, recoverer);
    const announced: bigint[] = [];
    pool.onPending((pooled) => announced.push(pooled.nonce));
    const first = pool.add(fresh(signTx(0, { nonce: 0n })));
    const second = pool.add(fresh(signTx(0, { nonce: 1n })));
    // The same transaction again, and one the signature check refuses, queue up behind them.
    const duplicate = pool.add(fresh(signTx(0, { nonce: 1n })));
    const refused = pool.add(withInvalidR(signTx(1, { nonce: 0n })));
    const settled: string[] = [];
    for (const [name, admission] of Object.entries({ first, second, duplicate, refused })) {
      admission.then(
        () => settled.push(name),
        () => settled.push(name),
      );
    }
    expect(recoverer.held).toHaveLength(4);
    for (const release of [...recoverer.held].reverse()) release();
    await expect(first).resolves.toMatchObject({ nonce: 0n });
    await expect(second).resolves.toMatchObject({ nonce: 1n });
    await expect(duplicate).rejects.toThrow(/^already known/);
    await expect(refused).rejects.toThrow(/^invalid sender/);
    await Promise.allSettled([first, second, duplicate, refused]);
    expect(settled).toEqual(['first', 'second', 'duplicate', 'refused']);
    expect(announced).toEqual([0n, 1n]);
    expect(pool.status()).toEqual({ pending: 2, queued: 0 });
  });

  it('refuses a transaction for its form before it asks for a recovery', async () => {
    const recoverer = new HeldRecoverer();
    const pool = newPool(new FakeState(), {}, recoverer);
    const otherChain = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Prague });
    await expect(pool.add(signTx(0, { nonce: 0n }, otherChain))).rejects.toThrow(
      /^invalid chain id/,
    );
    expect(recoverer.held).toHaveLength(0);
  });
});
