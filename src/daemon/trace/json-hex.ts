/** The JSON forms geth gives values in trace results (QUANTITY and DATA as in every result). */
import type { Address } from '@ethereumjs/util';
import { hex, quantity } from '../api/formatters.js';

export { quantity };

/** DATA: 0x-prefixed hex. */
export const data = hex;

/** An address in lower case, as geth writes addresses in traces. */
export const address = (value: Address): string => value.toString();

/** A 32-byte word as 0x-prefixed hex of 64 digits. */
export function word(value: bigint): string {
  return `0x${value.toString(16).padStart(64, '0')}`;
}
