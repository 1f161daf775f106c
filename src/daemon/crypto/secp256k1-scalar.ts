/** Range checks on secp256k1 scalars (private keys, signature `r` and `s`), as 32 big-endian bytes. */
import { SECP256K1_ORDER, SECP256K1_ORDER_DIV_2, bytesToBigInt } from '@ethereumjs/util';

const SCALAR_BYTES = 32;

/** Whether `bytes` is 32 bytes encoding a number in [1, n-1], n the order of the group. */
export function isSecp256k1Scalar(bytes: Uint8Array): boolean {
  if (bytes.length !== SCALAR_BYTES) return false;
  const value = bytesToBigInt(bytes);
  return value !== 0n && value < SECP256K1_ORDER;
}

/** Whether a signature's `s` (32 bytes) is in the lower half of the range, as EIP-2 requires. */
export function isLowS(s: Uint8Array): boolean {
  return isSecp256k1Scalar(s) && bytesToBigInt(s) <= SECP256K1_ORDER_DIV_2;
}
