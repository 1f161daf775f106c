import { describe, expect, it } from '@jest/globals';
import { FeeOracle, type FeeSource } from '../../src/daemon/api/fee-oracle.js';
import type { StoredBlock } from '../../src/daemon/chain/types.js';
import type { BlockCommittedEvent } from '../../src/daemon/events/event-bus.js';

const BASE_FEE = 1_000n;
const MIN_GAS_PRICE = 7n;

/** A block whose legacy transactions pay `tips` above the base fee. */
function blockWithTips(number: bigint, tips: readonly bigint[]): StoredBlock {
  return {
    number,
    block: {
      header: { baseFeePerGas: BASE_FEE },
      transactions: tips.map((tip) => ({ gasPrice: BASE_FEE + tip })),
    },
  } as unknown as StoredBlock;
}

/** A chain of `blocks` that counts the blocks read from it, and a bus that publishes to the oracle. */
function chainOf(blocks: StoredBlock[]) {
  const reads: bigint[] = [];
  const listeners: Array<(event: BlockCommittedEvent) => void> = [];
  const source = {
    head: () => blocks[blocks.length - 1],
    getBlockByNumber: (number: bigint) => {
      reads.push(number);
      return blocks[Number(number)];
    },
    getBlockReceipts: () => [],
    nextBaseFee: () => BASE_FEE,
    minGasPrice: MIN_GAS_PRICE,
  } as unknown as FeeSource;
  const bus = {
    onBlock: (listener: (event: BlockCommittedEvent) => void) => {
      listeners.push(listener);
      return () => undefined;
    },
  };
  const commit = (tips: readonly bigint[]) => {
    const block = blockWithTips(BigInt(blocks.length), tips);
    blocks.push(block);
    for (const listener of listeners) {
      listener({ block, receipts: [], results: [] });
    }
  };
  return { source, bus, reads, commit };
}

describe('FeeOracle', () => {
  it('suggests the minimum gas price on an idle chain', () => {
    const { source } = chainOf([blockWithTips(0n, []), blockWithTips(1n, [])]);
    expect(new FeeOracle(source).suggestedTip()).toBe(MIN_GAS_PRICE);
  });

  it("suggests the 60th percentile of each recent block's three lowest tips", () => {
    const blocks = [blockWithTips(0n, [])];
    // Block n pays tips n, n+100, n+200 and two far higher ones that are never sampled.
    for (let n = 1n; n <= 25n; n++) {
      blocks.push(blockWithTips(n, [n + 1_000_000n, n + 200n, n, n + 100n, n + 2_000_000n]));
    }
    const { source } = chainOf(blocks);
    // Blocks 6..25 give 60 samples (6..25, 106..125, 206..225); sorted, index floor(59 * 0.6)
    // = 35 of them is 121.
    expect(new FeeOracle(source).suggestedTip()).toBe(121n);
  });

  it('samples committed blocks as they are published instead of reading them back', () => {
    const { source, bus, reads, commit } = chainOf([blockWithTips(0n, [])]);
    const oracle = new FeeOracle(source, bus);
    commit([50n]);
    commit([10n, 30n]);
    expect(oracle.suggestedTip()).toBe(30n);
    expect(reads).toEqual([0n]);
    commit([5n]);
    expect(oracle.suggestedTip()).toBe(10n);
    expect(reads).toEqual([0n]);
  });
});
