import { existsSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { bytesToHex } from '@ethereumjs/util';
import { open } from 'lmdb';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { ServerError } from '../../src/shared/errors.js';
import { PoolJournal } from '../../src/daemon/txpool/journal.js';
import type { JournalDamage, JournalWriter } from '../../src/daemon/txpool/journal.js';
import { DEFAULT_POOL_LIMITS, TxPool } from '../../src/daemon/txpool/txpool.js';
import { CHAIN_ID, FakeState, GWEI, address, common, signTx } from './txpool-fixtures.js';
import { pointTreePastTheFile } from '../helpers/lmdb-damage.js';

beforeAll(async () => {
  await initCrypto();
});

const dirs: string[] = [];
const journals: PoolJournal[] = [];
afterEach(async () => {
  for (const journal of journals.splice(0)) await journal.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function openJournal(dir = mkdtempSync(join(tmpdir(), 'txpool-journal-'))): Promise<{
  dir: string;
  journal: PoolJournal;
}> {
  if (!dirs.includes(dir)) dirs.push(dir);
  const journal = await PoolJournal.open(dir, 0);
  journals.push(journal);
  return { dir, journal };
}

async function reopen(dir: string, journal: PoolJournal): Promise<PoolJournal> {
  journals.splice(journals.indexOf(journal), 1);
  await journal.close();
  return (await openJournal(dir)).journal;
}

function poolWith(state: FakeState, journal?: JournalWriter): TxPool {
  return new TxPool({
    state,
    chainId: CHAIN_ID,
    minGasPrice: GWEI,
    limits: DEFAULT_POOL_LIMITS,
    journal,
  });
}

const journaledHashes = (journal: PoolJournal): string[] =>
  journal
    .transactions(common)
    .transactions.map((tx) => bytesToHex(tx.hash()))
    .sort();

describe('pool journal', () => {
  it('keeps what was written, with its sender, across a reopen, and forgets what was removed', async () => {
    const { dir, journal } = await openJournal();
    const [a, b] = [signTx(0, { nonce: 0n }), signTx(0, { nonce: 1n })];
    await Promise.all([
      journal.write(bytesToHex(a.hash()), a),
      journal.write(bytesToHex(b.hash()), b),
    ]);
    journal.remove(bytesToHex(a.hash()));
    const reopened = await reopen(dir, journal);
    expect(journaledHashes(reopened)).toEqual([bytesToHex(b.hash())]);
    const [restored] = reopened.transactions(common).transactions;
    expect(restored.cache.senderPubKey).toEqual(b.getSenderPublicKey());
    expect(restored.getSenderAddress().equals(address(0))).toBe(true);
  });

  it.each([
    [
      'a truncated file',
      (dataFile: string) => truncateSync(dataFile, statSync(dataFile).size / 2),
      /^is truncated \(\d+ bytes, its header needs at least \d+\)$/,
    ],
    ['an emptied file', (dataFile: string) => truncateSync(dataFile, 0), /^is empty \(0 bytes\)$/],
    [
      'a file damaged inside, its header whole,',
      (dataFile: string) => pointTreePastTheFile(dataFile, 'transactions'),
      /^cannot be read \(.+\)$/,
    ],
  ])('sets %s aside and starts empty, saying what was wrong', async (_name, damage, problem) => {
    const { dir, journal } = await openJournal();
    const txs = Array.from({ length: 200 }, (_, nonce) => signTx(0, { nonce: BigInt(nonce) }));
    await Promise.all(txs.map((tx) => journal.write(bytesToHex(tx.hash()), tx)));
    journals.splice(journals.indexOf(journal), 1);
    await journal.close();
    damage(join(dir, 'data.mdb'));

    const damages: JournalDamage[] = [];
    const reopened = await PoolJournal.open(dir, 0, undefined, (found) => damages.push(found));
    journals.push(reopened);
    expect(damages).toEqual([
      { problem: expect.stringMatching(problem), movedTo: join(dir, 'data.mdb.damaged') },
    ]);
    expect(existsSync(join(dir, 'data.mdb.damaged'))).toBe(true);
    expect(journaledHashes(reopened)).toEqual([]);
    const tx = signTx(1, { nonce: 0n });
    await reopened.write(bytesToHex(tx.hash()), tx);
    expect(journaledHashes(await reopen(dir, reopened))).toEqual([bytesToHex(tx.hash())]);
  });

  it('leaves out an entry that does not decode, and removes it', async () => {
    const { dir, journal } = await openJournal();
    const tx = signTx(0, { nonce: 0n });
    await journal.write(bytesToHex(tx.hash()), tx);
    journals.splice(journals.indexOf(journal), 1);
    await journal.close();
    const garbage = `0x${'ab'.repeat(32)}`;
    const root = open({ path: dir, maxDbs: 2, compression: false });
    const entries = root.openDB<Uint8Array, Buffer>('transactions', {
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    await entries.put(Buffer.from(garbage.slice(2), 'hex'), Buffer.alloc(80, 0xff));
    await root.close();

    const reopened = (await openJournal(dir)).journal;
    const held = reopened.transactions(common);
    expect(held.unreadable).toEqual([garbage]);
    expect(held.transactions.map((t) => bytesToHex(t.hash()))).toEqual([bytesToHex(tx.hash())]);
    const after = await reopen(dir, reopened);
    expect(after.transactions(common).unreadable).toEqual([]);
  });

  it('refuses writes once closed', async () => {
    const { journal } = await openJournal();
    await journal.close();
    const tx = signTx(0, { nonce: 0n });
    await expect(journal.write(bytesToHex(tx.hash()), tx)).rejects.toBeInstanceOf(ServerError);
  });

  it('holds every transaction the pool accepted, and only those it still holds', async () => {
    const { journal } = await openJournal();
    const state = new FakeState();
    const pool = poolWith(state, journal);
    const mined = signTx(0, { nonce: 0n });
    const kept = signTx(0, { nonce: 1n });
    const queued = signTx(1, { nonce: 5n });
    for (const tx of [mined, kept, queued]) await pool.add(tx);
    expect(journaledHashes(journal)).toEqual(
      [mined, kept, queued].map((tx) => bytesToHex(tx.hash())).sort(),
    );

    state.setNonce(0, 1n);
    await pool.onBlockCommitted([bytesToHex(mined.hash())], state);
    pool.drop(bytesToHex(queued.hash()));
    const bumped = signTx(0, {
      nonce: 1n,
      maxFeePerGas: 20n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
    });
    // The replacement's answer waits for the commit that also carries the old entry's removal.
    await pool.add(bumped);
    expect(journaledHashes(journal)).toEqual([bytesToHex(bumped.hash())]);
  });

  it('restores each sender in nonce order and drops, from pool and journal, what became invalid', async () => {
    const { dir, journal } = await openJournal();
    const state = new FakeState();
    const first = poolWith(state, journal);
    const txs = [0n, 1n, 2n, 3n].flatMap((nonce) => [signTx(0, { nonce }), signTx(1, { nonce })]);
    for (const tx of txs) await first.add(tx);

    // A block mined sender 0's first two before the journal heard of it; the node died.
    state.setNonce(0, 2n);
    const reopened = await reopen(dir, journal);
    const restored = poolWith(state, reopened);
    const announced: string[] = [];
    restored.onPending((pooled) => announced.push(`${pooled.senderHex}:${pooled.nonce}`));
    const refused = await restored.restore(reopened.transactions(common).transactions);

    expect(refused.map((r) => r.reason).sort()).toEqual([
      'nonce too low: next nonce 2, tx nonce 0',
      'nonce too low: next nonce 2, tx nonce 1',
    ]);
    const pending = restored.pendingBySender();
    expect(pending.get(address(0).toString())?.map((p) => p.nonce)).toEqual([2n, 3n]);
    expect(pending.get(address(1).toString())?.map((p) => p.nonce)).toEqual([0n, 1n, 2n, 3n]);
    expect(restored.status()).toEqual({ pending: 6, queued: 0 });
    for (const sender of [address(0), address(1)]) {
      const order = announced.filter((a) => a.startsWith(sender.toString()));
      expect(order).toEqual([...order].sort());
    }
    // The refused ones leave the journal in the next group commit.
    const after = await reopen(dir, reopened);
    expect(journaledHashes(after)).toEqual(
      txs
        .filter((tx) => !refused.some((r) => r.hashHex === bytesToHex(tx.hash())))
        .map((tx) => bytesToHex(tx.hash()))
        .sort(),
    );
  });

  it('keeps, on restore, a transaction the base fee has overtaken', async () => {
    const state = new FakeState();
    const tx = signTx(0, { nonce: 0n, maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI });
    state.baseFee = 3n * GWEI;
    const restored = poolWith(state);
    expect(await restored.restore([tx])).toEqual([]);
    expect(restored.getByHash(bytesToHex(tx.hash()))).toBeDefined();
    expect(restored.executable()).toEqual([]);
  });

  it('does not accept a transaction the journal could not write', async () => {
    const failing: JournalWriter = {
      write: () => Promise.reject(new ServerError('failed to write the transaction pool journal')),
      remove: () => undefined,
    };
    const pool = poolWith(new FakeState(), failing);
    const tx = signTx(0, { nonce: 0n });
    await expect(pool.add(tx)).rejects.toBeInstanceOf(ServerError);
    expect(pool.getByHash(bytesToHex(tx.hash()))).toBeUndefined();
    expect(pool.status()).toEqual({ pending: 0, queued: 0 });
  });
});
