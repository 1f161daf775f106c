/**
 * Exact decimal numbers for query comparisons. Values are kept as an integer and a power-of-ten
 * scale, so `1.10 = 1.1` holds and integers wider than 2^53 (token amounts in wei) compare
 * exactly, which JavaScript numbers could not do.
 */

/** The number `units / 10^scale`. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const WHOLE_NUMBER = /^-?\d+(?:\.\d+)?$/;
const LEADING_NUMBER = /^-?\d+(?:\.\d+)?/;

/** Parses text that is exactly a number (`0`, `-7`, `3.25`); anything else gives undefined. */
export function parseDecimal(text: string): Decimal | undefined {
  return WHOLE_NUMBER.test(text) ? fromDigits(text) : undefined;
}

/**
 * Reads the number at the start of an event value, ignoring what follows, as CometBFT does so
 * that amounts like `100stake` or `6.5atom` compare as 100 and 6.5. A value that does not start
 * with a number gives undefined.
 */
export function leadingDecimal(value: string): Decimal | undefined {
  const match = LEADING_NUMBER.exec(value);
  return match === null ? undefined : fromDigits(match[0]);
}

/** Negative, zero or positive as `a` is less than, equal to or greater than `b`. */
export function compareDecimals(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale);
  const left = a.units * 10n ** BigInt(scale - a.scale);
  const right = b.units * 10n ** BigInt(scale - b.scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

function fromDigits(text: string): Decimal {
  const [whole, fraction = ''] = text.split('.');
  return { units: BigInt(whole + fraction), scale: fraction.length };
}
