import { describe, expect, it } from '@jest/globals';
import { FeeOracle, type FeeSource } from '../../src/daemon/api/fee-oracle.js';
import { blockFees, type ReceiptFees } from '../../src/daemon/chain/block-fees.js';
import type { StoredBlock } from '../../src/daemon/chain/types.js';
import type { BlockCommittedEvent } from '../../src/daemon/events/event-bus.js';

const BASE_FEE = 1_000n;
const GAS_LIMIT = 1_000_000n;
const MIN_GAS_PRICE = 7n;

/** Receipts of transactions that paid `tips` above the base fee, using `gas` each. */
const receiptsPaying = (tips: readonly bigint[], gas = 21_000n): ReceiptFees[] =>
  tips.map((tip) => ({ gasUsed: gas, effectiveGasPrice: BASE_FEE + tip }));

/**
 * A chain of blocks paying the given tips, that counts the blocks read back from it, and a bus
 * through which `commit` publishes a new block to the oracle.
 */
function chainOf(blocksOfTips: ReadonlyArray<readonly bigint[]>) {
  const blocks = blocksOfTips.map((tips) => receiptsPaying(tips));
  const reads: bigint[] = [];
  const listeners: Array<(event: BlockCommittedEvent) => void> = [];
  const header = (receipts: ReceiptFees[]) => ({
    gasLimit: GAS_LIMIT,
    gasUsed: receipts.reduce((sum, receipt) => sum + receipt.gasUsed, 0n),
    baseFeePerGas: BASE_FEE,
  });
  const source: FeeSource = {
    head: () => ({ number: BigInt(blocks.length - 1) }) as StoredBlock,
    getBlockFees: (number: bigint) => {
      reads.push(number);
      const receipts = blocks[Number(number)];
      return receipts === undefined ? undefined : blockFees(header(receipts), receipts);
    },
    nextBaseFee: () => BASE_FEE,
    minGasPrice: MIN_GAS_PRICE,
  };
  const bus = {
    onBlock: (listener: (event: BlockCommittedEvent) => void) => {
      listeners.push(listener);
      return () => undefined;
    },
    onRewind: () => () => undefined,
  };
  const commit = (tips: readonly bigint[]) => {
    const receipts = receiptsPaying(tips);
    blocks.push(receipts);
    const block = { number: BigInt(blocks.length - 1), block: { header: header(receipts) } };
    const event = { block, receipts, results: [] } as unknown as BlockCommittedEvent;
    for (const listener of listeners) listener(event);
  };
  return { source, bus, reads, commit };
}

describe('FeeOracle', () => {
  it('suggests the minimum gas price on an idle chain', () => {
    const { source } = chainOf([[], []]);
    expect(new FeeOracle(source).suggestedTip()).toBe(MIN_GAS_PRICE);
  });

  it("suggests the 60th percentile of each recent block's three lowest tips", () => {
    // Block n pays tips n, n+100, n+200 and two far higher ones that are never sampled.
    const blocks = [[] as bigint[]];
    for (let n = 1n; n <= 25n; n++) {
      blocks.push([n + 1_000_000n, n + 200n, n, n + 100n, n + 2_000_000n]);
    }
    // Blocks 6..25 give 60 samples (6..25, 106..125, 206..225); sorted, index floor(59 * 0.6)
    // = 35 of them is 121.
    expect(new FeeOracle(chainOf(blocks).source).suggestedTip()).toBe(121n);
  });

  it('takes committed blocks as they are published instead of reading them back', () => {
    const { source, bus, reads, commit } = chainOf([[]]);
    const oracle = new FeeOracle(source, bus);
    commit([50n]);
    commit([10n, 30n]);
    expect(oracle.suggestedTip()).toBe(30n);
    expect(reads).toEqual([0n]);
    commit([5n]);
    expect(oracle.suggestedTip()).toBe(10n);
    expect(oracle.feeHistory(2, 3n, [0, 50, 100]).reward).toEqual([
      [10n, 10n, 30n],
      [5n, 5n, 5n],
    ]);
    expect(reads).toEqual([0n]);
  });

  it('leaves reward out when no percentiles are asked for, as geth does', () => {
    const oracle = new FeeOracle(chainOf([[], [1n], [2n], [3n]]).source);
    expect(oracle.feeHistory(2, 3n, [50]).reward).toEqual([[2n], [3n]]);
    expect(oracle.feeHistory(2, 3n, [])).not.toHaveProperty('reward');
    expect(oracle.feeHistory(2, 3n, undefined)).not.toHaveProperty('reward');
  });

  it('weights reward percentiles by gas used, merging equal tips', () => {
    const receipts = [
      ...receiptsPaying([3n], 60_000n),
      ...receiptsPaying([1n, 1n], 10_000n),
      ...receiptsPaying([2n], 20_000n),
    ];
    const { source } = chainOf([[]]);
    const fees = blockFees(
      { gasLimit: GAS_LIMIT, gasUsed: 100_000n, baseFeePerGas: BASE_FEE },
      receipts,
    );
    expect(fees.tips).toEqual([
      { tip: 1n, count: 2, gas: 20_000n },
      { tip: 2n, count: 1, gas: 20_000n },
      { tip: 3n, count: 1, gas: 60_000n },
    ]);
    const oracle = new FeeOracle({
      ...source,
      getBlockFees: () => fees,
      head: () => ({ number: 0n }) as StoredBlock,
    });
    expect(oracle.feeHistory(1, 0n, [10, 20, 30, 40, 41, 100]).reward).toEqual([
      [1n, 1n, 2n, 2n, 3n, 3n],
    ]);
    expect(oracle.suggestedTip()).toBe(1n);
  });
});
