/**
 * Fee arithmetic the pool needs, uniform across transaction types: legacy and access-list
 * transactions pay one `gasPrice`, which serves as both fee cap and tip (as in geth).
 */
import type { TypedTransaction } from '@ethereumjs/tx';

/** The two prices a transaction offers, in wei per gas. */
export interface TransactionFees {
  /** Most the sender pays per gas (`maxFeePerGas`, or `gasPrice`). */
  feeCap: bigint;
  /** Most the block producer receives per gas (`maxPriorityFeePerGas`, or `gasPrice`). */
  tipCap: bigint;
}

/** Reads the fee cap and tip cap of any transaction type. */
export function transactionFees(tx: TypedTransaction): TransactionFees {
  if ('maxFeePerGas' in tx) return { feeCap: tx.maxFeePerGas, tipCap: tx.maxPriorityFeePerGas };
  return { feeCap: tx.gasPrice, tipCap: tx.gasPrice };
}

/**
 * What the block producer earns per gas with the given base fee; negative when the fee cap
 * cannot even pay the base fee (the transaction cannot be included then).
 */
export function effectiveTip(fees: TransactionFees, baseFee: bigint): bigint {
  const headroom = fees.feeCap - baseFee;
  return headroom < fees.tipCap ? headroom : fees.tipCap;
}

/** Most wei the transaction can take from its sender: gas × fee cap + value (geth's `Cost`). */
export function maxCost(tx: TypedTransaction, fees: TransactionFees): bigint {
  return tx.gasLimit * fees.feeCap + tx.value;
}

/**
 * Whether `next` may replace `current` (same sender and nonce): both prices must rise, each by
 * at least `bumpPercent` percent, rounded down as geth does.
 */
export function isSufficientBump(
  current: TransactionFees,
  next: TransactionFees,
  bumpPercent: number,
): boolean {
  const factor = BigInt(100 + bumpPercent);
  if (next.feeCap <= current.feeCap || next.tipCap <= current.tipCap) return false;
  return (
    next.feeCap >= (current.feeCap * factor) / 100n &&
    next.tipCap >= (current.tipCap * factor) / 100n
  );
}
