/**
 * Fixed-point conversion between integer base units (wei) and decimal text in a larger unit
 * (gwei, ether), exact on bigint.
 */

/** Decimal places of the units the CLI accepts and prints. */
export const UNIT_DECIMALS: Readonly<Record<string, number>> = {
  wei: 0,
  gwei: 9,
  ether: 18,
  eth: 18,
};

/** `1500000000000000000n, 18` → "1.5"; always at least one decimal for decimals > 0. */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const scale = 10n ** BigInt(decimals);
  const whole = magnitude / scale;
  const fraction =
    decimals === 0
      ? ''
      : `.${(magnitude % scale).toString().padStart(decimals, '0').replace(/0+$/, '') || '0'}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

export function formatEther(wei: bigint): string {
  return formatUnits(wei, 18);
}

/**
 * "1.5", 18 → 1500000000000000000n. Undefined when the text is not a non-negative decimal or
 * has more fraction digits than the unit holds.
 */
export function parseUnits(text: string, decimals: number): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1]) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}
