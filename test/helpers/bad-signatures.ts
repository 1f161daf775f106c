/**
 * secp256k1 signatures that look valid (r and s in range, s low) but recover no key: the inputs
 * that used to break the WebAssembly module after about 1 900 refusals (security issue #20).
 */
import {
  SECP256K1_ORDER as N,
  bigIntToBytes,
  bytesToBigInt,
  setLengthLeft,
} from '@ethereumjs/util';
import { SigningKey } from 'ethers';

/** Field prime of secp256k1. */
export const SECP256K1_P = 2n ** 256n - 2n ** 32n - 977n;

/** `value` as 32 big-endian bytes. */
export const word = (value: bigint): Uint8Array => setLengthLeft(bigIntToBytes(value), 32);

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  for (let b = base % modulus, e = exponent; e > 0n; e >>= 1n, b = (b * b) % modulus) {
    if (e & 1n) result = (result * b) % modulus;
  }
  return result;
}

/** The smallest x from `from` on that is no curve point's x-coordinate (x³ + 7 has no root). */
export function offCurveX(from = 1n): bigint {
  for (let x = from; ; x++) {
    if (modPow(x ** 3n + 7n, (SECP256K1_P - 1n) / 2n, SECP256K1_P) === SECP256K1_P - 1n) return x;
  }
}

export interface CraftedSignature {
  r: bigint;
  s: bigint;
  /** Recovery id, 0 or 1. */
  yParity: number;
}

/**
 * Signs digests so that R is a real curve point and r and s pass every range check, but the
 * recovered key would be the point at infinity: R = kG with s = e / k makes sR - eG = 0. The
 * point kG is worked out once (it is the slow part), so one signer serves many digests.
 */
export function infinitySigner(k = 0x1234567890abcdefn): (digest: Uint8Array) => CraftedSignature {
  const compressedR = Buffer.from(new SigningKey(word(k)).compressedPublicKey.slice(2), 'hex');
  const r = bytesToBigInt(compressedR.subarray(1));
  const kInverse = modPow(k, N - 2n, N);
  return (digest) => {
    const s = ((bytesToBigInt(digest) % N) * kInverse) % N;
    // -k names the point with the same x and the other parity, and gives n - s: take the low one.
    const flip = s > N / 2n ? 1 : 0;
    return { r, s: flip ? N - s : s, yParity: (compressedR[0] - 2) ^ flip };
  };
}
