/**
 * Block outlines (`ChainReader.getBlockOutline`): a block read from its stored record without
 * building its transactions answers `eth_getBlockByNumber(n, false)` exactly as the built block
 * does, for every transaction type, whether the built block is cached or not.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createAccessList2930Tx, createEOACode7702Tx, createLegacyTx } from '@ethereumjs/tx';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { formatBlock, formatBlockOutline } from '../../src/daemon/api/formatters.js';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { devAddress, devKey, pooled, signTx, tempDataDir } from './chain-fixtures.js';

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
    expect(chain.getBlockOutlineByHash(new Uint8Array(32))).toBeUndefined();
  });
});
