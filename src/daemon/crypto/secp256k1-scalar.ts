/**
 * Range checks on secp256k1 scalars (private keys, signature `r` and `s`) as 32 big-endian
 * bytes. They run before every recovery, so they compare bytes rather than make numbers.
 */
import {
  SECP256K1_ORDER,
  SECP256K1_ORDER_DIV_2,
  bigIntToBytes,
  setLengthLeft,
} from '@ethereumjs/util';

const SCALAR_BYTES = 32;
const ORDER = setLengthLeft(bigIntToBytes(SECP256K1_ORDER), SCALAR_BYTES);
const HALF_ORDER = setLengthLeft(bigIntToBytes(SECP256K1_ORDER_DIV_2), SCALAR_BYTES);

/** Sign of `a - b` for two 32-byte big-endian numbers. */
function compare(a: Uint8Array, b: Uint8Array): number {
  for (let index = 0; index < SCALAR_BYTES; index++) {
    if (a[index] !== b[index]) return a[index] - b[index];
  }
  return 0;
}

/** Whether `bytes` is 32 bytes encoding a number in [1, n-1], n the order of the group. */
export function isSecp256k1Scalar(bytes: Uint8Array): boolean {
  return (
    bytes.length === SCALAR_BYTES && bytes.some((byte) => byte !== 0) && compare(bytes, ORDER) < 0
  );
}

/** Whether a signature's `s` (32 bytes) is in [1, n/2], the lower half EIP-2 requires. */
export function isLowS(s: Uint8Array): boolean {
  return isSecp256k1Scalar(s) && compare(s, HALF_ORDER) <= 0;
}
