/**
 * Reads of a block that do not build all its transactions: its outline
 * (`ChainReader.getBlockOutline`) answers `eth_getBlockByNumber(n, false)` exactly as the built
 * block does, and a transaction or a receipt looked up by hash is the same built alone from the
 * stored record as taken from the built block, for every transaction type.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createAccessList2930Tx, createEOACode7702Tx, createLegacyTx } from '@ethereumjs/tx';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { formatBlock, formatBlockOutline } from '../../src/daemon/api/formatters.js';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import type { Pause } from '../../src/daemon/time-slice.js';
import {
  deployStoreContract,
  devAddress,
  devKey,
  pooled,
  signTx,
  tempDataDir,
  word,
} from './chain-fixtures.js';

const coinbase = new Address(hexToBytes(`0x${'c0'.repeat(20)}`));
const format = { ethereumCompat: true };

describe('block outlines', () => {
  let dir: string;
  let cleanup: () => void;
  let chain: Chain;

  beforeEach(async () => {
    ({ dir, cleanup } = tempDataDir());
    chain = await Chain.open({ dataDir: dir, genesis: devGenesis(), coinbase });
  });

  afterEach(async () => {
    await chain.close();
    cleanup();
  });

  /** A block holding a transaction of each type the node accepts, from five senders. */
  async function commitMixedBlock(): Promise<bigint> {
    const { common } = chain;
    const to = devAddress(9);
    const fees = { nonce: 0n, to, gasLimit: 100_000n, gasPrice: 10n ** 10n };
    const txs = [
      createLegacyTx(fees, { common }).sign(devKey(1)),
      createAccessList2930Tx(
        { ...fees, accessList: [{ address: to.toString(), storageKeys: [] }] },
        { common },
      ).sign(devKey(2)),
      signTx(common, 3, { nonce: 0n, to, value: 7n }),
      createEOACode7702Tx(
        {
          nonce: 0n,
          to,
          gasLimit: 100_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
          authorizationList: [
            {
              chainId: bytesToHex(hexToBytes(`0x${common.chainId().toString(16)}`)),
              address: to.toString(),
              nonce: '0x0',
              yParity: '0x1',
              r: `0x${'11'.repeat(32)}`,
              s: `0x${'22'.repeat(32)}`,
            },
          ],
        },
        { common },
      ).sign(devKey(4)),
    ];
    const committed = await chain.buildAndCommitBlock(txs.map(pooled), 1n);
    expect(committed.receipts).toHaveLength(txs.length);
    return chain.head().number;
  }

  const expectSameAnswer = (number: bigint) => {
    const stored = chain.getBlockByNumber(number)!;
    const outline = chain.getBlockOutline(number)!;
    expect(outline.transactionHashes).toEqual(
      stored.block.transactions.map((tx) => bytesToHex(tx.hash())),
    );
    expect(formatBlockOutline(outline, format)).toEqual(formatBlock(stored, false, format));
    expect(chain.getBlockOutlineByHash(stored.hash)).toBe(outline);
  };

  it('answers as the built block when that block is cached', async () => {
    const number = await commitMixedBlock();
    expectSameAnswer(number);
  });

  it('answers as the built block when read from the stored record', async () => {
    const number = await commitMixedBlock();
    await chain.buildAndCommitBlock([], 2n);
    await chain.close();
    chain = await Chain.open({ dataDir: dir, genesis: devGenesis(), coinbase });
    // The outline first, so it is decoded from the record, not taken from a built block.
    const outline = chain.getBlockOutline(number)!;
    expect(outline.transactionHashes).toHaveLength(4);
    expectSameAnswer(number);
    expect(chain.getBlockOutline(chain.head().number + 1n)).toBeUndefined();
  });

  it('finds a transaction and its receipt by hash without building the block', async () => {
    const number = await commitMixedBlock();
    await chain.buildAndCommitBlock([], 2n);
    const hashes = chain.getBlockByNumber(number)!.block.transactions.map((tx) => tx.hash());
    await chain.close();
    chain = await Chain.open({ dataDir: dir, genesis: devGenesis(), coinbase });
    // Read first from the records alone, then again once the block is cached built.
    const alone = hashes.map((hash) => ({
      transaction: chain.getTransaction(hash)!,
      receipt: chain.getReceipt(hash)!,
    }));
    const stored = chain.getBlockByNumber(number)!;
    const receipts = chain.getBlockReceipts(number)!;
    alone.forEach(({ transaction, receipt }, index) => {
      expect(bytesToHex(transaction.tx.serialize())).toBe(
        bytesToHex(stored.block.transactions[index].serialize()),
      );
      expect(transaction.sender.equals(stored.senders[index])).toBe(true);
      expect(transaction.blockHash).toEqual(stored.hash);
      expect(transaction.blockNumber).toBe(number);
      expect(transaction.index).toBe(index);
      expect(receipt).toEqual(receipts[index]);
      expect(chain.getReceipt(hashes[index])).toEqual(receipts[index]);
    });
    expect(chain.getBlockOutlineByHash(new Uint8Array(32))).toBeUndefined();
  });

  it("numbers a receipt's logs after those of the transactions before it", async () => {
    const contract = await deployStoreContract(chain, 0n, 1n);
    const calls = [1, 2, 3].map((from) =>
      signTx(chain.common, from, { nonce: 0n, to: contract, data: word(7n), gasLimit: 100_000n }),
    );
    await chain.buildAndCommitBlock(calls.map(pooled), 2n);
    await chain.buildAndCommitBlock([], 3n);
    await chain.close();
    chain = await Chain.open({ dataDir: dir, genesis: devGenesis(), coinbase });
    const last = chain.getReceipt(calls[2].hash())!;
    expect(last.logs.map((log) => log.logIndex)).toEqual([2]);
    expect(last).toEqual(chain.getBlockReceipts(last.blockNumber)![2]);
  });

  it('shows no transaction or receipt of a block being committed before it is the head', async () => {
    const tx = signTx(chain.common, 1, { nonce: 0n, to: devAddress(9), value: 1n });
    const hash = tx.hash();
    const early: bigint[] = [];
    let watching = false;
    // The producer's slices run after the store's commit too, with the parent still the head.
    const pause: Pause = () => {
      if (!watching) return undefined;
      const head = chain.head().number;
      for (const found of [chain.getTransaction(hash), chain.getReceipt(hash)]) {
        if (found !== undefined && found.blockNumber > head) early.push(found.blockNumber);
      }
      return undefined;
    };
    await chain.close();
    chain = await Chain.open({ dataDir: dir, genesis: devGenesis(), coinbase, pause });
    watching = true;
    await chain.buildAndCommitBlock([pooled(tx)], 1n);
    expect(early).toEqual([]);
    expect(chain.getReceipt(hash)?.blockNumber).toBe(chain.head().number);
  });
});
