/**
 * The chain store's block write outside its transaction: trie nodes written ahead as lmdb's
 * asynchronous writes in time slices, transaction locations encoded before the transaction,
 * with the stored bytes and the reads unchanged.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import { writeAsync } from '../../src/daemon/chain/lmdb-file.js';
import { ChainStore, type BlockWrite } from '../../src/daemon/chain/store.js';
import type { Pause } from '../../src/daemon/time-slice.js';
import { tempDataDir } from './chain-fixtures.js';

const EMPTY_FLAT = {
  stateRoot: new Uint8Array(32),
  replace: false,
  clearedStorage: [],
  accounts: [],
  slots: [],
};

function blockWrite(number: number, txs: number, nodes: number): BlockWrite {
  return {
    number,
    hash: randomBytes(32),
    blockRecord: randomBytes(100),
    receiptsRlp: randomBytes(50),
    txHashes: Array.from({ length: txs }, () => randomBytes(32)),
    senders: Array.from({ length: txs }, () => randomBytes(20)),
    trieNodes: new Map(
      Array.from({ length: nodes }, () => [randomBytes(32).toString('hex'), randomBytes(80)]),
    ),
    flatState: EMPTY_FLAT,
  };
}

/** A pause that always lets the event loop run, counting its calls. */
function yieldingPause(): { pause: Pause; calls: () => number } {
  let calls = 0;
  return {
    pause: () => {
      calls++;
      return new Promise((resolve) => setImmediate(resolve));
    },
    calls: () => calls,
  };
}

describe('chain store block writes', () => {
  let dir: string;
  let cleanup: () => void;
  let store: ChainStore;
  beforeEach(async () => {
    ({ dir, cleanup } = tempDataDir());
    store = ChainStore.open(dir);
    await store.commitGenesis(blockWrite(0, 0, 3), {
      genesisHash: randomBytes(32),
      chainId: 1n,
    });
  });
  afterEach(async () => {
    await store.close();
    cleanup();
  });

  it('stores nodes and locations of a block written in slices, as it reads them back', async () => {
    const write = blockWrite(1, 50, 400);
    const { pause, calls } = yieldingPause();
    await store.commitBlock(write, pause);
    // One pause before each node and each location: every step let the event loop run.
    expect(calls()).toBe(400 + 50);
    expect(store.head()).toEqual({ number: 1, hash: new Uint8Array(write.hash) });
    for (const [key, value] of write.trieNodes) {
      expect(store.readTrieNode(key)).toEqual(new Uint8Array(value));
    }
    write.txHashes.forEach((hash, index) => {
      expect(store.txLocation(hash)).toEqual({
        blockNumber: 1,
        index,
        sender: new Uint8Array(write.senders[index]),
      });
    });
  });

  it('stores the locations byte for byte as a put of the values would', async () => {
    const write = blockWrite(1, 3, 0);
    await store.commitBlock(write);
    await store.close();
    const root = open({ path: `${dir}/chain`, maxDbs: 12, compression: false });
    try {
      const raw = root.openDB<Uint8Array, Buffer>('txLocations', {
        keyEncoding: 'binary',
        encoding: 'binary',
      });
      const reference = root.openDB<unknown, Buffer>('reference', { keyEncoding: 'binary' });
      await root.transaction(() => {
        write.txHashes.forEach((hash, index) => {
          reference.putSync(Buffer.from(hash), [1, index, write.senders[index]]);
        });
      });
      const referenceRaw = root.openDB<Uint8Array, Buffer>('reference', {
        keyEncoding: 'binary',
        encoding: 'binary',
      });
      for (const hash of write.txHashes) {
        expect(raw.getBinary(Buffer.from(hash))).toEqual(referenceRaw.getBinary(Buffer.from(hash)));
      }
    } finally {
      await root.close();
    }
    store = ChainStore.open(dir);
  });
});

describe('writeAsync', () => {
  let root: RootDatabase;
  let db: Database<Uint8Array, Buffer>;
  let cleanup: () => void;
  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDataDir());
    root = open({ path: dir, maxDbs: 2, compression: false });
    db = root.openDB('entries', { keyEncoding: 'binary', encoding: 'binary' });
  });
  afterEach(async () => {
    await root.close();
    cleanup();
  });

  it('applies writes and removals in order, across slices, committed when it resolves', async () => {
    const keys = Array.from({ length: 300 }, (_, i) => Buffer.from([i >> 8, i & 0xff]));
    const { pause } = yieldingPause();
    await writeAsync(
      root,
      db,
      keys.map((key) => [key, key]),
      'entries',
      pause,
    );
    const removed = keys.filter((_, i) => i % 3 === 0);
    await writeAsync(
      root,
      db,
      [...removed.map((key) => [key, undefined] as const), [keys[0], Buffer.from('again')]],
      'entries',
      pause,
    );
    root.resetReadTxn();
    keys.forEach((key, i) => {
      const expected = i === 0 ? Buffer.from('again') : i % 3 === 0 ? undefined : key;
      expect(db.getBinary(key)).toEqual(expected);
    });
  });
});
