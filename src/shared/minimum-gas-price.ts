/**
 * Highest minimum gas price (and so base-fee floor) the node takes, 2^192 - 1 wei: the fee of
 * any gas amount (a uint64) at that price still fits in a uint256, as a transaction's
 * `gas × price` must. A higher floor would let no transaction be built or included.
 */
export const MAX_MINIMUM_GAS_PRICE = 2n ** 192n - 1n;

/** Why a minimum gas price is refused, or undefined when it is in range. */
export function minimumGasPriceProblem(price: bigint): string | undefined {
  return price > MAX_MINIMUM_GAS_PRICE
    ? `must be at most 2^192-1 wei (${MAX_MINIMUM_GAS_PRICE}), so that gas (uint64) × price fits in uint256`
    : undefined;
}
