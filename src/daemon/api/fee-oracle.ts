/**
 * Fee suggestions: the priority fee users should offer and the fee history of recent blocks.
 * Tips are sampled from the last blocks as geth's gas price oracle does (the few lowest of each
 * block), so the suggestion follows what actually got included; an idle chain suggests the
 * minimum gas price. A block's fee facts (`chain/block-fees.ts`) are taken as it is committed
 * and kept, and read back from the stored records only for blocks the daemon did not commit
 * itself or no longer keeps: building twenty full blocks' transactions held up the main thread
 * for about half a second.
 */
import {
  ascending,
  blockFees,
  headerFees,
  lowestTips,
  rewardPercentiles,
  type BlockFees,
} from '../chain/block-fees.js';
import type { ChainReader } from '../chain/chain-reader.js';
import { LruCache } from '../chain/lru-cache.js';
import { InvalidInputError } from '../../shared/errors.js';
import type { EventBus } from '../events/event-bus.js';

/** Blocks the tip suggestion looks back over. */
const TIP_SAMPLE_BLOCKS = 20;
/** Tips sampled from each block: its lowest (geth's sample number). */
const TIPS_PER_BLOCK = 3;
/** Percentile of the sampled tips that is suggested. */
const TIP_PERCENTILE = 60;
/** Most blocks one eth_feeHistory call may cover (geth's limit). */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

/** What the oracle reads of the chain. */
export type FeeSource = Pick<ChainReader, 'head' | 'getBlockFees' | 'nextBaseFee' | 'minGasPrice'>;

/** Blocks whose fee facts are kept, weighed by their distinct tips (about 3 MiB when full). */
const KEPT_TIP_BUCKETS = 32_768;

export class FeeOracle {
  private cached: { head: bigint; tip: bigint } | undefined;
  /** Recent blocks' fee facts, by number (a committed block is final here). */
  private readonly fees = new LruCache<bigint, BlockFees>(
    KEPT_TIP_BUCKETS,
    (fees) => fees.tips.length + 1,
  );

  /** Takes the fee facts of every block published on `committed` as it comes. */
  constructor(
    private readonly chain: FeeSource,
    committed?: Pick<EventBus, 'onBlock' | 'onRewind'>,
  ) {
    committed?.onBlock(({ block, receipts }) =>
      this.fees.set(block.number, blockFees(headerFees(block.block.header), receipts)),
    );
    // A development rewind gives numbers new blocks.
    committed?.onRewind(() => {
      this.fees.clear();
      this.cached = undefined;
    });
  }

  /** Suggested priority fee (eth_maxPriorityFeePerGas). */
  suggestedTip(): bigint {
    const head = this.chain.head().number;
    if (this.cached?.head === head) return this.cached.tip;
    const tips: bigint[] = [];
    const oldest = head - BigInt(TIP_SAMPLE_BLOCKS) + 1n;
    for (let number = head; number >= 0n && number >= oldest; number -= 1n) {
      const fees = this.blockFees(number);
      if (fees !== undefined) tips.push(...lowestTips(fees, TIPS_PER_BLOCK));
    }
    tips.sort(ascending);
    const tip =
      tips.length === 0
        ? this.chain.minGasPrice
        : tips[Math.floor(((tips.length - 1) * TIP_PERCENTILE) / 100)];
    this.cached = { head, tip };
    return tip;
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
    // geth leaves `reward` out unless percentiles were asked for.
    if (percentiles !== undefined && percentiles.length > 0) history.reward = [];
    for (let number = oldest; number <= newest; number += 1n) {
      const fees = this.blockFees(number) as BlockFees;
      history.baseFeePerGas.push(fees.baseFeePerGas);
      history.gasUsedRatio.push(Number(fees.gasUsed) / Number(fees.gasLimit));
      history.baseFeePerBlobGas.push(0n);
      history.blobGasUsedRatio.push(0);
      if (history.reward && percentiles) history.reward.push(rewardPercentiles(fees, percentiles));
    }
    const next =
      newest === this.chain.head().number
        ? this.chain.nextBaseFee()
        : (this.blockFees(newest + 1n)?.baseFeePerGas ?? 0n);
    history.baseFeePerGas.push(next);
    history.baseFeePerBlobGas.push(0n);
    return history;
  }

  /** Block `number`'s fee facts, read from the chain if they were not taken at its commit. */
  private blockFees(number: bigint): BlockFees | undefined {
    let fees = this.fees.get(number);
    if (fees === undefined) {
      fees = this.chain.getBlockFees(number);
      if (fees !== undefined) this.fees.set(number, fees);
    }
    return fees;
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
