/**
 * Facts about a secp256k1 private key: whether it is usable, and the Ethereum address it
 * controls. Requires `initCrypto()` to have resolved.
 */
import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../../shared/errors.js';
import { isSecp256k1Scalar } from '../crypto/secp256k1-scalar.js';
import { keccak256, secp256k1Expand, secp256k1KeyPair } from '../crypto/wasm-crypto.js';

const PRIVATE_KEY_BYTES = 32;

/**
 * Throws `InvalidInputError` unless `privateKey` is 32 bytes encoding a scalar in [1, n-1],
 * with a message that says which.
 */
export function assertValidPrivateKey(privateKey: Uint8Array): void {
  if (privateKey.length !== PRIVATE_KEY_BYTES) {
    throw new InvalidInputError(
      `invalid private key: expected ${PRIVATE_KEY_BYTES} bytes, got ${privateKey.length}`,
    );
  }
  if (!isSecp256k1Scalar(privateKey)) {
    throw new InvalidInputError('invalid private key: not in the secp256k1 scalar range');
  }
}

/** A new private key from the operating system's random source, uniform over [1, n-1]. */
export function generatePrivateKey(): Uint8Array {
  for (;;) {
    const candidate = new Uint8Array(randomBytes(PRIVATE_KEY_BYTES));
    if (isSecp256k1Scalar(candidate)) return candidate;
  }
}

/**
 * The address of a private key as 40 lowercase hex digits without `0x`: the last 20 bytes of
 * keccak256 of the uncompressed public key without its 0x04 prefix.
 *
 * @example addressOfPrivateKey(key) // 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266'
 */
export function addressOfPrivateKey(privateKey: Uint8Array): string {
  return addressOfPublicKey(publicKeyOfPrivateKey(privateKey));
}

/** The 33-byte compressed public key of a private key. */
export function publicKeyOfPrivateKey(privateKey: Uint8Array): Uint8Array {
  assertValidPrivateKey(privateKey);
  return secp256k1KeyPair(privateKey).subarray(PRIVATE_KEY_BYTES);
}

/** The address of a 33-byte compressed public key, in the form of {@link addressOfPrivateKey}. */
export function addressOfPublicKey(compressedPublicKey: Uint8Array): string {
  const uncompressed = secp256k1Expand(compressedPublicKey);
  return Buffer.from(keccak256(uncompressed.subarray(1)).subarray(12)).toString('hex');
}
