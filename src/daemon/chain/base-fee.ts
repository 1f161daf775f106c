/** EIP-1559 parameters: the gas target is half the limit, the fee moves at most 1/8 per block. */
const ELASTICITY_MULTIPLIER = 2n;
const BASE_FEE_MAX_CHANGE_DENOMINATOR = 8n;

/** A block header's base fee is a uint256. */
const MAX_BASE_FEE = 2n ** 256n - 1n;

/**
 * Base fee of the block after `parent`: the EIP-1559 rule, never below `floor` (the minimum
 * gas price), so an idle chain settles at the minimum price instead of decaying to zero, and
 * never above a uint256, so a run of full blocks cannot make a header unencodable.
 */
export function nextBaseFee(
  parent: { baseFeePerGas: bigint; gasUsed: bigint; gasLimit: bigint },
  floor: bigint,
): bigint {
  const target = parent.gasLimit / ELASTICITY_MULTIPLIER;
  let fee = parent.baseFeePerGas;
  if (target > 0n && parent.gasUsed > target) {
    const delta = (fee * (parent.gasUsed - target)) / target / BASE_FEE_MAX_CHANGE_DENOMINATOR;
    fee += delta > 1n ? delta : 1n;
  } else if (target > 0n && parent.gasUsed < target) {
    fee -= (fee * (target - parent.gasUsed)) / target / BASE_FEE_MAX_CHANGE_DENOMINATOR;
  }
  if (fee > MAX_BASE_FEE) return MAX_BASE_FEE;
  return fee > floor ? fee : floor;
}
