/**
 * A block's fee facts: what the fee oracle (`eth_feeHistory`, `eth_maxPriorityFeePerGas`)
 * reads of it. Everything comes from the header and the receipts (a receipt keeps the price
 * its transaction paid), so a block read back for its fees never has its transactions built.
 */

/** The header fields fee readers need. */
export interface HeaderFees {
  gasLimit: bigint;
  gasUsed: bigint;
  /** Zero before London. */
  baseFeePerGas: bigint;
}

/** Transactions that paid the same tip, merged. */
export interface TipBucket {
  tip: bigint;
  count: number;
  gas: bigint;
}

export interface BlockFees extends HeaderFees {
  /** The tips the block's transactions paid above its base fee, ascending. */
  tips: TipBucket[];
}

/** What a receipt says of the fee its transaction paid. */
export interface ReceiptFees {
  gasUsed: bigint;
  effectiveGasPrice: bigint;
}

/** The fee fields of a built block's header. */
export function headerFees(header: {
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas?: bigint;
}): HeaderFees {
  return {
    gasLimit: header.gasLimit,
    gasUsed: header.gasUsed,
    baseFeePerGas: header.baseFeePerGas ?? 0n,
  };
}

export const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

export function blockFees(header: HeaderFees, receipts: readonly ReceiptFees[]): BlockFees {
  const paid = receipts
    .map((receipt) => ({
      tip: receipt.effectiveGasPrice - header.baseFeePerGas,
      gas: receipt.gasUsed,
    }))
    .sort((a, b) => ascending(a.tip, b.tip));
  const tips: TipBucket[] = [];
  for (const { tip, gas } of paid) {
    const last = tips[tips.length - 1];
    if (last?.tip === tip) {
      last.count++;
      last.gas += gas;
    } else {
      tips.push({ tip, count: 1, gas });
    }
  }
  return {
    gasLimit: header.gasLimit,
    gasUsed: header.gasUsed,
    baseFeePerGas: header.baseFeePerGas,
    tips,
  };
}

/** The `limit` lowest tips the block paid, one per transaction. */
export function lowestTips(fees: BlockFees, limit: number): bigint[] {
  const tips: bigint[] = [];
  for (const bucket of fees.tips) {
    for (let i = 0; i < bucket.count && tips.length < limit; i++) tips.push(bucket.tip);
    if (tips.length === limit) break;
  }
  return tips;
}

/** The tips at `percentiles` of the block's gas used, as geth weights them; zeros if empty. */
export function rewardPercentiles(fees: BlockFees, percentiles: readonly number[]): bigint[] {
  if (fees.tips.length === 0) return percentiles.map(() => 0n);
  const totalGas = Number(fees.tips.reduce((sum, bucket) => sum + bucket.gas, 0n));
  return percentiles.map((percentile) => {
    const threshold = (totalGas * percentile) / 100;
    let cumulative = 0;
    for (const bucket of fees.tips) {
      cumulative += Number(bucket.gas);
      if (cumulative >= threshold) return bucket.tip;
    }
    return fees.tips[fees.tips.length - 1].tip;
  });
}
