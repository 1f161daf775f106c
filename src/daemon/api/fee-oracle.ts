/**
 * Fee suggestions: the priority fee users should offer and the fee history of recent blocks.
 * Tips are sampled from the last blocks' transactions as geth's gas price oracle does (the few
 * lowest of each block), so the suggestion follows what actually got included; an idle chain
 * suggests the minimum gas price. Each block's samples are taken as it is committed, from the
 * transactions already in memory, and kept: read back from the database, twenty full blocks
 * (mostly out of the block cache) took the main thread about a third of a second to decode.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { ChainReader } from '../chain/chain-reader.js';
import { LruCache } from '../chain/lru-cache.js';
import type { StoredBlock } from '../chain/types.js';
import { InvalidInputError } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';

/** Blocks the tip suggestion looks back over. */
const TIP_SAMPLE_BLOCKS = 20;
/** Tips sampled from each block: its lowest (geth's sample number). */
const TIPS_PER_BLOCK = 3;
/** Percentile of the sampled tips that is suggested. */
const TIP_PERCENTILE = 60;
/** Most blocks one eth_feeHistory call may cover (geth's limit). */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  if ('maxPriorityFeePerGas' in tx && 'maxFeePerGas' in tx) {
    const cap = (tx.maxFeePerGas as bigint) - baseFee;
    const tip = tx.maxPriorityFeePerGas as bigint;
    return tip < cap ? tip : cap;
  }
  return (tx as { gasPrice: bigint }).gasPrice - baseFee;
}

const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** What the oracle reads of the chain. */
export type FeeSource = Pick<
  ChainReader,
  'head' | 'getBlockByNumber' | 'getBlockReceipts' | 'nextBaseFee' | 'minGasPrice'
>;

/** The lowest tips `block` paid, at most `TIPS_PER_BLOCK`. */
function tipsOf(block: StoredBlock): bigint[] {
  const baseFee = block.block.header.baseFeePerGas ?? 0n;
  return block.block.transactions
    .map((tx) => effectiveTip(tx, baseFee))
    .sort(ascending)
    .slice(0, TIPS_PER_BLOCK);
}

export class FeeOracle {
  private cached: { head: bigint; tip: bigint } | undefined;
  /** Each recent block's sampled tips, by number (a committed block is final here). */
  private readonly samples = new LruCache<bigint, bigint[]>(2 * TIP_SAMPLE_BLOCKS);

  /** Samples every block published on `committed` as it comes. */
  constructor(
    private readonly chain: FeeSource,
    committed?: Pick<EventBus, 'onBlock'>,
  ) {
    committed?.onBlock((event) => this.samples.set(event.block.number, tipsOf(event.block)));
  }

  /** Suggested priority fee (eth_maxPriorityFeePerGas). */
  suggestedTip(): bigint {
    const head = this.chain.head();
    if (this.cached?.head === head.number) return this.cached.tip;
    const tips: bigint[] = [];
    const oldest = head.number - BigInt(TIP_SAMPLE_BLOCKS) + 1n;
    for (let number = head.number; number >= 0n && number >= oldest; number -= 1n) {
      tips.push(...this.sampledTips(number));
    }
    tips.sort(ascending);
    const tip =
      tips.length === 0
        ? this.chain.minGasPrice
        : tips[Math.floor(((tips.length - 1) * TIP_PERCENTILE) / 100)];
    this.cached = { head: head.number, tip };
    return tip;
  }

  /** Block `number`'s samples, read from the chain if they were not taken at its commit. */
  private sampledTips(number: bigint): bigint[] {
    let tips = this.samples.get(number);
    if (tips === undefined) {
      const block = this.chain.getBlockByNumber(number);
      tips = block === undefined ? [] : tipsOf(block);
      this.samples.set(number, tips);
    }
    return tips;
  }

  /** eth_gasPrice: the next base fee plus the suggested tip. */
  gasPrice(): bigint {
    return this.chain.nextBaseFee() + this.suggestedTip();
  }

  feeHistory(
    blockCount: number,
    newest: bigint,
    percentiles: readonly number[] | undefined,
  ): FeeHistory {
    validatePercentiles(percentiles);
    const count = BigInt(Math.min(blockCount, MAX_FEE_HISTORY_BLOCKS, Number(newest) + 1));
    const oldest = newest - count + 1n;
    const history: FeeHistory = {
      oldestBlock: oldest,
      baseFeePerGas: [],
      gasUsedRatio: [],
      baseFeePerBlobGas: [],
      blobGasUsedRatio: [],
    };
    if (percentiles) history.reward = [];
    for (let number = oldest; number <= newest; number += 1n) {
      const block = this.chain.getBlockByNumber(number) as StoredBlock;
      const header = block.block.header;
      history.baseFeePerGas.push(header.baseFeePerGas ?? 0n);
      history.gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit));
      history.baseFeePerBlobGas.push(0n);
      history.blobGasUsedRatio.push(0);
      if (history.reward && percentiles) history.reward.push(this.rewards(block, percentiles));
    }
    const next =
      newest === this.chain.head().number
        ? this.chain.nextBaseFee()
        : (this.chain.getBlockByNumber(newest + 1n)?.block.header.baseFeePerGas ?? 0n);
    history.baseFeePerGas.push(next);
    history.baseFeePerBlobGas.push(0n);
    return history;
  }

  /** Tips at the given percentiles of gas used in the block (geth's weighting). */
  private rewards(block: StoredBlock, percentiles: readonly number[]): bigint[] {
    const baseFee = block.block.header.baseFeePerGas ?? 0n;
    const receipts = this.chain.getBlockReceipts(block.number) ?? [];
    const entries = block.block.transactions
      .map((tx, index) => ({
        tip: effectiveTip(tx, baseFee),
        gas: receipts[index]?.gasUsed ?? tx.gasLimit,
      }))
      .sort((a, b) => ascending(a.tip, b.tip));
    if (entries.length === 0) return percentiles.map(() => 0n);
    const totalGas = entries.reduce((sum, entry) => sum + entry.gas, 0n);
    return percentiles.map((percentile) => {
      const threshold = (Number(totalGas) * percentile) / 100;
      let cumulative = 0;
      for (const entry of entries) {
        cumulative += Number(entry.gas);
        if (cumulative >= threshold) return entry.tip;
      }
      return entries[entries.length - 1].tip;
    });
  }
}

export interface FeeHistory {
  oldestBlock: bigint;
  baseFeePerGas: bigint[];
  gasUsedRatio: number[];
  baseFeePerBlobGas: bigint[];
  blobGasUsedRatio: number[];
  reward?: bigint[][];
}

function validatePercentiles(percentiles: readonly number[] | undefined): void {
  if (!percentiles) return;
  if (percentiles.length > 100)
    throw new InvalidInputError('invalid params: at most 100 reward percentiles');
  percentiles.forEach((value, index) => {
    if (value < 0 || value > 100)
      throw new InvalidInputError(`invalid reward percentile ${value}: must be between 0 and 100`);
    if (index > 0 && value < percentiles[index - 1]) {
      throw new InvalidInputError(
        `invalid reward percentile: #${index - 1}:${percentiles[index - 1]} > #${index}:${value}`,
      );
    }
  });
}
