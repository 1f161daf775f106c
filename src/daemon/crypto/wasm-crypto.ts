/**
 * Hashing and secp256k1 through @polkadot/wasm-crypto. The WebAssembly module must be
 * initialised once (`initCrypto`) before any other function here is called; the daemon does
 * it at start-up and tests do it in their setup.
 *
 * Every function here takes any input: what the module would refuse is refused here first where
 * a check is complete and cheap (lengths, scalar ranges), and the rest goes through `callWasm`,
 * which turns the module's trap into an `InvalidInputError` and leaves the module working. No
 * number of refused inputs affects later calls.
 */
import { waitReady } from '@polkadot/wasm-crypto';
import { InvalidInputError } from '../../shared/errors.js';
import { isLowS, isSecp256k1Scalar } from './secp256k1-scalar.js';
import { callWasm } from './wasm-call.js';

const DIGEST_BYTES = 32;
const COMPACT_SIGNATURE_BYTES = 64;
const COMPRESSED_PUBLIC_KEY_BYTES = 33;

let ready: Promise<void> | undefined;

export function initCrypto(): Promise<void> {
  ready ??= waitReady().then((ok) => {
    if (!ok) throw new Error('@polkadot/wasm-crypto failed to initialise');
  });
  return ready;
}

export function keccak256(data: Uint8Array): Uint8Array {
  return callWasm('ext_keccak256', [data], [], 'keccak256 failed');
}

export function sha256(data: Uint8Array): Uint8Array {
  return callWasm('ext_sha256', [data], [], 'sha256 failed');
}

function assertSecretKey(secretKey: Uint8Array): void {
  if (!isSecp256k1Scalar(secretKey)) {
    throw new InvalidInputError('invalid secp256k1 private key: not 32 bytes in [1, n-1]');
  }
}

function assertDigest(digest: Uint8Array): void {
  if (digest.length !== DIGEST_BYTES) {
    throw new InvalidInputError(`invalid digest: expected ${DIGEST_BYTES} bytes`);
  }
}

/**
 * secp256k1 key pair of a private key: 65 bytes, the 32-byte secret followed by the 33-byte
 * compressed public key.
 *
 * @throws InvalidInputError unless the secret is 32 bytes in [1, n-1].
 */
export function secp256k1KeyPair(secretKey: Uint8Array): Uint8Array {
  assertSecretKey(secretKey);
  return callWasm('ext_secp_from_seed', [secretKey], [], 'invalid secp256k1 private key');
}

/**
 * Expands a 33-byte compressed public key to its 65-byte `0x04 ‖ x ‖ y` form.
 *
 * @throws InvalidInputError unless it is a compressed point of the curve.
 */
export function secp256k1Expand(publicKey: Uint8Array): Uint8Array {
  if (
    publicKey.length !== COMPRESSED_PUBLIC_KEY_BYTES ||
    (publicKey[0] !== 0x02 && publicKey[0] !== 0x03)
  ) {
    throw new InvalidInputError('invalid secp256k1 public key: not 33 bytes starting 0x02 or 0x03');
  }
  return callWasm(
    'ext_secp_pub_expand',
    [publicKey],
    [],
    'invalid secp256k1 public key: not on the curve',
  );
}

/**
 * Signs a 32-byte digest with a secp256k1 private key.
 * Returns 65 bytes `r ‖ s ‖ recoveryId` (recoveryId 0 or 1), the layout the WebAssembly module gives.
 *
 * @throws InvalidInputError unless the digest is 32 bytes and the key 32 bytes in [1, n-1].
 */
export function secp256k1SignDigest(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  assertDigest(digest);
  assertSecretKey(privateKey);
  return callWasm('ext_secp_sign', [digest, privateKey], [], 'secp256k1 signing failed');
}

/**
 * Refuses what no secp256k1 recovery here takes: a digest that is not 32 bytes, a signature that
 * is not 64, a recovery id other than 0 or 1, `r` or `s` out of [1, n-1], or a high `s`. Every
 * recovery implementation checks with this first, so all of them refuse these alike.
 *
 * @throws InvalidInputError naming the first problem.
 */
export function assertRecoverable(
  digest: Uint8Array,
  signature64: Uint8Array,
  recoveryId: number,
): void {
  assertDigest(digest);
  if (signature64.length !== COMPACT_SIGNATURE_BYTES || (recoveryId !== 0 && recoveryId !== 1)) {
    throw new InvalidInputError('invalid signature: expected 64 bytes and recovery id 0 or 1');
  }
  if (!isSecp256k1Scalar(signature64.subarray(0, 32)) || !isLowS(signature64.subarray(32))) {
    throw new InvalidInputError('invalid signature: r or s out of range');
  }
}

/**
 * Recovers the uncompressed public key (65 bytes, leading 0x04) that signed `digest`.
 *
 * @throws InvalidInputError when the signature is not recoverable: wrong lengths, a recovery id
 *   other than 0 or 1, `r` or `s` out of [1, n-1], high `s` (which the module refuses, so callers
 *   that must accept it, the ecrecover precompile, need a fallback), an `r` that is no point's
 *   x-coordinate, or a signature whose key would be the point at infinity.
 */
export function secp256k1RecoverPublicKey(
  digest: Uint8Array,
  signature64: Uint8Array,
  recoveryId: number,
): Uint8Array {
  assertRecoverable(digest, signature64, recoveryId);
  const compressed = callWasm(
    'ext_secp_recover',
    [digest, signature64],
    [recoveryId],
    'invalid signature: no public key recovers from it',
  );
  return callWasm('ext_secp_pub_expand', [compressed], [], 'recovered an invalid public key');
}
