import { afterEach, describe, expect, it } from '@jest/globals';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToBytes, bytesToHex } from '@ethereumjs/util';
import { decodeBlockRecord, encodeBlockRecord } from '../../src/daemon/chain/block-record.js';
import { Chain } from '../../src/daemon/chain/chain.js';
import { decodeReceipts, encodeReceipts } from '../../src/daemon/chain/receipt-codec.js';
import type { ReceiptRecord } from '../../src/daemon/chain/receipt-codec.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import type { Pause } from '../../src/daemon/time-slice.js';
import { devAddress, pooled, signTx, tempDataDir } from './chain-fixtures.js';

const TRANSFERS = 40;

/** Transfers from dev accounts 0..3 to dev account 5, ten each, in nonce order per sender. */
function transfers(chain: Chain) {
  return Array.from({ length: TRANSFERS }, (_, i) =>
    pooled(
      signTx(chain.common, i % 4, {
        nonce: BigInt(Math.floor(i / 4)),
        to: devAddress(5),
        value: BigInt(i + 1),
      }),
    ),
  );
}

describe('block production in time slices', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function openChain(pause?: Pause): Promise<Chain> {
    const tmp = tempDataDir();
    const chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis(), pause });
    cleanups.push(async () => {
      await chain.close();
      tmp.cleanup();
    });
    return chain;
  }

  it('gives the event loop turns while a block executes, showing readers the parent until it is committed, and makes the same block', async () => {
    const unsliced = await openChain(() => undefined);
    const expected = await unsliced.buildAndCommitBlock(transfers(unsliced), 10n);

    let pauses = 0;
    const headsSeenBetween: bigint[] = [];
    const chain = await openChain(() => {
      pauses++;
      return new Promise((resolve) =>
        setImmediate(() => {
          headsSeenBetween.push(chain.head().number);
          resolve();
        }),
      );
    });
    const committed = await chain.buildAndCommitBlock(transfers(chain), 10n);

    expect(committed.results).toHaveLength(TRANSFERS);
    expect(bytesToHex(committed.block.hash)).toBe(bytesToHex(expected.block.hash));
    expect(pauses).toBeGreaterThan(2 * TRANSFERS);
    expect(new Set(headsSeenBetween)).toEqual(new Set([0n]));
    expect(chain.head().number).toBe(1n);
    expect(await chain.getBalance(devAddress(5))).toBe(await unsliced.getBalance(devAddress(5)));
  });

  it('reads the size of a block off its record: as produced, as read back, and for genesis', async () => {
    const chain = await openChain();
    const genesis = chain.getBlockByNumber(0n)!;
    const committed = await chain.buildAndCommitBlock(transfers(chain), 10n);
    for (const stored of [genesis, committed.block]) {
      const size = stored.block.serialize().length;
      expect(stored.size).toBe(size);
      const record = await encodeBlockRecord(stored.block, stored.senders);
      expect(decodeBlockRecord(record, chain.common).size).toBe(size);
    }
  });

  it('encodes a block record one transaction at a time into the bytes of encoding it whole', async () => {
    const chain = await openChain();
    const legacy = (i: number) =>
      pooled(
        signTx(chain.common, 6, { nonce: BigInt(i), to: devAddress(5), gasPrice: 10n ** 10n }),
      );
    const committed = await chain.buildAndCommitBlock(
      [...transfers(chain), legacy(0), legacy(1)],
      10n,
    );
    expect(committed.block.block.transactions.map((tx) => tx.type)).toContain(0);
    for (const stored of [chain.getBlockByNumber(0n)!, committed.block]) {
      let pauses = 0;
      const record = await encodeBlockRecord(stored.block, stored.senders, () => {
        pauses++;
        return undefined;
      });
      const whole = RLP.encode([stored.block.raw(), stored.senders.map((s) => s.bytes)]);
      expect(bytesToHex(record)).toBe(bytesToHex(whole));
      expect(pauses).toBe(stored.block.transactions.length + 1);
    }
  });

  it('encodes receipts one at a time, pausing before each, into the bytes of the whole list', async () => {
    const record = (i: number): ReceiptRecord => ({
      status: (i % 2) as 0 | 1,
      cumulativeGasUsed: 21_000n * BigInt(i + 1),
      gasUsed: 21_000n,
      effectiveGasPrice: 1_000_000_007n,
      logsBloom: new Uint8Array(256).fill(i),
      logs:
        i % 3 === 0 ? [] : [[new Uint8Array(20).fill(1), [new Uint8Array(32)], new Uint8Array(i)]],
    });
    for (const count of [0, 1, 300]) {
      const records = Array.from({ length: count }, (_, i) => record(i));
      let pauses = 0;
      const encoded = await encodeReceipts(records, () => {
        pauses++;
        return undefined;
      });
      const whole = RLP.encode(
        records.map((r) => [
          r.status,
          bigIntToBytes(r.cumulativeGasUsed),
          bigIntToBytes(r.gasUsed),
          bigIntToBytes(r.effectiveGasPrice),
          new Uint8Array(),
          r.logsBloom,
          r.logs,
        ]),
      );
      expect(bytesToHex(encoded)).toBe(bytesToHex(whole));
      expect(pauses).toBe(count);
      expect(decodeReceipts(encoded).map((r) => r.cumulativeGasUsed)).toEqual(
        records.map((r) => r.cumulativeGasUsed),
      );
    }
  });
});
