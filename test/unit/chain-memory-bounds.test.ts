import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Address,
  bytesToHex,
  createAddressFromString,
  randomBytes,
  toChecksumAddress,
} from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { checksumAddress } from '../../src/daemon/chain/checksum-address.js';
import { DEV_ADDRESSES, devGenesis } from '../../src/daemon/chain/genesis.js';
import { LruCache } from '../../src/daemon/chain/lru-cache.js';
import { blockRetainedBytes } from '../../src/daemon/chain/retained-size.js';
import type { CommittedBlock } from '../../src/daemon/chain/types.js';
import { BlockResults } from '../../src/daemon/consensus-rpc/block-results.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { devAddress, pooled, signTx, tempDataDir } from './chain-fixtures.js';

describe('LruCache with weights', () => {
  const sized = () => new LruCache<string, number>(10, (value) => value);

  it('evicts the least recently used entries until the total weight fits', () => {
    const cache = sized();
    cache.set('a', 4);
    cache.set('b', 4);
    expect(cache.get('a')).toBe(4);
    cache.set('c', 4);
    expect(cache.has('b')).toBe(false);
    expect(cache.has('a')).toBe(true);
    expect(cache.weight).toBe(8);
  });

  it('keeps an entry heavier than the budget until the next one arrives', () => {
    const cache = sized();
    cache.set('a', 3);
    cache.set('huge', 25);
    expect(cache.size).toBe(1);
    expect(cache.get('huge')).toBe(25);
    cache.set('b', 1);
    expect(cache.has('huge')).toBe(false);
    expect(cache.weight).toBe(1);
  });

  it('replaces the weight of a key set again, and clear forgets every weight', () => {
    const cache = sized();
    cache.set('a', 9);
    cache.set('a', 2);
    cache.set('b', 8);
    expect(cache.size).toBe(2);
    expect(cache.weight).toBe(10);
    cache.clear();
    expect(cache.weight).toBe(0);
    cache.set('c', 10);
    expect(cache.size).toBe(1);
  });

  it('counts entries when no weight is given', () => {
    const cache = new LruCache<number, string>(2);
    cache.set(1, 'x');
    cache.set(2, 'y');
    cache.set(3, 'z');
    expect(cache.has(1)).toBe(false);
    expect(cache.size).toBe(2);
  });
});

describe('LruCache with an idle limit', () => {
  let clock = 0;
  const idle = () =>
    new LruCache<string, number>(100, (value) => value, { ms: 60, now: () => clock });

  it('drops the entries unused for longer than the limit at the next insertion, and only those', () => {
    clock = 0;
    const cache = idle();
    cache.set('old', 1);
    cache.set('read', 1);
    clock = 50;
    expect(cache.get('read')).toBe(1);
    clock = 70;
    // Nothing happens without an insertion: the cache only drops entries as it takes new ones.
    expect(cache.size).toBe(2);
    cache.set('new', 1);
    expect(cache.has('old')).toBe(false);
    expect(cache.has('read')).toBe(true);
    expect(cache.weight).toBe(2);
    clock = 200;
    cache.set('newest', 5);
    expect(cache.size).toBe(1);
    expect(cache.weight).toBe(5);
  });

  it('keeps the entry just set however long its key went unused, and still bounds the weight', () => {
    clock = 0;
    const cache = idle();
    cache.set('a', 60);
    clock = 1000;
    cache.set('a', 30);
    expect(cache.get('a')).toBe(30);
    cache.set('b', 50);
    cache.set('c', 40);
    expect(cache.has('a')).toBe(false);
    expect(cache.weight).toBe(90);
  });
});

describe('checksumAddress', () => {
  beforeAll(() => initCrypto());

  it('matches EIP-55 as @ethereumjs/util computes it', () => {
    for (const hex of DEV_ADDRESSES) {
      expect(checksumAddress(createAddressFromString(hex.toLowerCase()))).toBe(hex);
    }
    for (let i = 0; i < 50; i++) {
      const address = new Address(randomBytes(20));
      expect(checksumAddress(address)).toBe(toChecksumAddress(address.toString()));
    }
  });
});

describe('bounded block, receipt and result caches', () => {
  let chain: Chain;
  let cleanup: () => void;
  const committed: CommittedBlock[] = [];

  beforeAll(async () => {
    const tmp = tempDataDir();
    cleanup = tmp.cleanup;
    // Budgets of one byte: every cache keeps only the entry set last.
    chain = await Chain.open({
      dataDir: tmp.dir,
      genesis: devGenesis(),
      cacheBytes: { blocks: 1, receipts: 1 },
    });
    for (let nonce = 0n; nonce < 3n; nonce++) {
      const txs = [0, 1].map((from) =>
        pooled(signTx(chain.common, from, { nonce, to: devAddress(5), value: 1000n + nonce })),
      );
      committed.push(await chain.buildAndCommitBlock(txs, nonce + 1n));
    }
  });

  afterAll(async () => {
    await chain.close();
    cleanup();
  });

  it('weighs a block by its transactions', () => {
    const empty = chain.getBlockByNumber(0n)!;
    const full = chain.getBlockByNumber(1n)!;
    expect(blockRetainedBytes(full)).toBeGreaterThan(blockRetainedBytes(empty));
  });

  it('reads evicted blocks, transactions and receipts back from the store unchanged', () => {
    committed.forEach(({ block, receipts }, index) => {
      // Read another block first, so each read below finds its block evicted.
      const other = committed[(index + 1) % committed.length];
      chain.getBlockByNumber(other.block.number);
      const read = chain.getBlockByNumber(block.number)!;
      expect(read.hashHex).toBe(block.hashHex);
      expect(read.senders.map(String)).toEqual(block.senders.map(String));
      chain.getBlockReceipts(other.block.number);
      const readReceipts = chain.getBlockReceipts(block.number)!;
      expect(readReceipts.map((r) => bytesToHex(r.transactionHash))).toEqual(
        receipts.map((r) => bytesToHex(r.transactionHash)),
      );
      expect(readReceipts.map((r) => r.cumulativeGasUsed)).toEqual(
        receipts.map((r) => r.cumulativeGasUsed),
      );
      const tx = chain.getTransaction(receipts[1].transactionHash)!;
      expect(tx.blockNumber).toBe(block.number);
      expect(tx.index).toBe(1);
    });
  });

  it('remembers published results within its budget and rebuilds the older ones', () => {
    // Room for the results of one two-transaction block only.
    const results = new BlockResults(chain, 1_200);
    const withError = committed.map((block) => ({
      ...block,
      results: block.results.map((result) => ({
        ...result,
        ethereumTx: { ...result.ethereumTx, ethereumTxFailed: 'remembered' },
      })),
    }));
    for (const block of withError) results.remember(block);
    const newest = results.at(committed[2].block.number)!;
    expect(newest.stored.hashHex).toBe(committed[2].block.hashHex);
    expect(newest.txs[0].result.ethereumTx.ethereumTxFailed).toBe('remembered');
    expect(newest.txs[1].tx.hash()).toEqual(committed[2].block.block.transactions[1].hash());
    const oldest = results.at(committed[0].block.number)!;
    expect(oldest.txs[0].result.ethereumTx.ethereumTxFailed).toBeUndefined();
    expect(oldest.txs[0].result.ethereumTx.sender).toBe(committed[0].results[0].ethereumTx.sender);
  });
});
