/**
 * What a call run as a bare message (no fees, no access list: `runFeelessCall` in `call.ts`)
 * pays before its first opcode. geth charges every eth_call the intrinsic gas of the
 * transaction it stands for, and refuses one whose gas does not cover it or, under EIP-7623, the
 * calldata floor; so a contract's `gasleft()` and the point where a call runs out of gas are the
 * same on both nodes.
 *
 * Computed from the data rather than by building that transaction and asking it: building one
 * costs about 80 µs on this project's machines, half of a whole `balanceOf` call. It models the
 * EIPs of the hardfork the node runs (Prague, `common.ts`: EIP-2028 data gas, EIP-3860 initcode
 * words, EIP-7623 floor); a unit test pins it to EthereumJS's own transaction.
 */
import type { Common } from '@ethereumjs/common';
import { paramsTx } from '@ethereumjs/tx';
import { TransactionRejectedError } from '../../shared/errors.js';

/** Bytes per initcode word (EIP-3860). */
const WORD_BYTES = 32;
/** EIP-7623 counts a non-zero byte as four tokens and a zero byte as one. */
const TOKENS_PER_NON_ZERO_BYTE = 4;

/** A hardfork's prices of what a transaction pays before execution. */
interface IntrinsicPrices {
  hardfork: string;
  base: bigint;
  zeroByte: bigint;
  nonZeroByte: bigint;
  creation: bigint;
  /** Per initcode word; 0 before EIP-3860. */
  initCodeWord: bigint;
  /** Per calldata token; undefined before EIP-7623. */
  floorPerToken: bigint | undefined;
}

const pricesByCommon = new WeakMap<Common, IntrinsicPrices>();

/**
 * The prices for `common`'s hardfork, read once: the transaction parameters are not in a chain's
 * Common until a transaction adds them to its own copy.
 */
function pricesOf(common: Common): IntrinsicPrices {
  const hardfork = common.hardfork();
  const known = pricesByCommon.get(common);
  if (known?.hardfork === hardfork) return known;
  const withTx = common.copy();
  withTx.updateParams(paramsTx);
  const prices: IntrinsicPrices = {
    hardfork,
    base: withTx.param('txGas'),
    zeroByte: withTx.param('txDataZeroGas'),
    nonZeroByte: withTx.param('txDataNonZeroGas'),
    creation: withTx.param('txCreationGas'),
    initCodeWord: withTx.isActivatedEIP(3860) ? withTx.param('initCodeWordGas') : 0n,
    floorPerToken: withTx.isActivatedEIP(7623) ? withTx.param('totalCostFloorPerToken') : undefined,
  };
  pricesByCommon.set(common, prices);
  return prices;
}

/**
 * The gas left for execution once the intrinsic gas of a call with `data` (a creation when
 * `creates`) is taken from `gasLimit`; throws `TransactionRejectedError` in the pool's words
 * when `gasLimit` does not cover the intrinsic gas or the calldata floor.
 */
export function gasAfterIntrinsic(
  common: Common,
  data: Uint8Array,
  creates: boolean,
  gasLimit: bigint,
): bigint {
  const prices = pricesOf(common);
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros += 1;
  const nonZeros = data.length - zeros;
  let intrinsic =
    prices.base + BigInt(zeros) * prices.zeroByte + BigInt(nonZeros) * prices.nonZeroByte;
  if (creates) {
    intrinsic +=
      prices.creation + prices.initCodeWord * BigInt(Math.ceil(data.length / WORD_BYTES));
  }
  if (gasLimit < intrinsic) {
    throw new TransactionRejectedError(
      `intrinsic gas too low: gas ${gasLimit}, minimum needed ${intrinsic}`,
    );
  }
  if (prices.floorPerToken !== undefined) {
    const tokens = BigInt(zeros + TOKENS_PER_NON_ZERO_BYTE * nonZeros);
    const floor = prices.base + prices.floorPerToken * tokens;
    if (gasLimit < floor) {
      throw new TransactionRejectedError(
        `insufficient gas for floor data gas cost: gas ${gasLimit}, minimum needed ${floor}`,
      );
    }
  }
  return gasLimit - intrinsic;
}
