/**
 * Signatures over "personal messages" (EIP-191 version 0x45), the form eth_sign, personal_sign
 * and wallets use so that a signed message can never be replayed as a signed transaction:
 * Keccak-256 of "\x19Ethereum Signed Message:\n", the message length in decimal, and the message.
 * Signatures are 65 bytes `r ‖ s ‖ v` with v 27 or 28, as geth returns them and ethers'
 * `verifyMessage` expects. Requires `initCrypto()` to have resolved.
 */
import { InvalidInputError } from '../../shared/errors.js';
import {
  keccak256,
  secp256k1RecoverPublicKey,
  secp256k1SignDigest,
} from '../crypto/wasm-crypto.js';

const PREFIX = '\x19Ethereum Signed Message:\n';
/** geth adds 27 to the recovery id, the convention of Bitcoin's signed messages. */
const V_OFFSET = 27;
const SIGNATURE_BYTES = 65;

/** The digest that is signed for `message`. */
export function personalMessageDigest(message: Uint8Array): Uint8Array {
  const prefix = Buffer.from(`${PREFIX}${message.length}`, 'utf8');
  return keccak256(Buffer.concat([prefix, message]));
}

/**
 * Signs `message` as a personal message.
 *
 * @example signPersonalMessage(Buffer.from('hello'), key) // 65 bytes, last one 27 or 28
 */
export function signPersonalMessage(message: Uint8Array, privateKey: Uint8Array): Uint8Array {
  return signDigestV27(personalMessageDigest(message), privateKey);
}

/**
 * Signs a 32-byte digest as geth's signing methods answer: `r ‖ s ‖ v`, v being 27 or 28
 * (personal messages here, EIP-712 typed data in `typed-data.ts`).
 */
export function signDigestV27(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const signature = secp256k1SignDigest(digest, privateKey);
  const result = new Uint8Array(signature);
  result[64] = signature[64] + V_OFFSET;
  return result;
}

/**
 * The address (`0x`, 40 lowercase hex digits) whose key signed `message`.
 *
 * @throws InvalidInputError with geth's wording when the signature is not 65 bytes, its v is
 *   not 27 or 28, or it recovers no key.
 */
export function recoverPersonalMessageSigner(message: Uint8Array, signature: Uint8Array): string {
  if (signature.length !== SIGNATURE_BYTES) {
    throw new InvalidInputError(`signature must be ${SIGNATURE_BYTES} bytes long`);
  }
  const v = signature[64];
  if (v !== V_OFFSET && v !== V_OFFSET + 1) {
    throw new InvalidInputError('invalid Ethereum signature (V is not 27 or 28)');
  }
  let publicKey: Uint8Array;
  try {
    publicKey = secp256k1RecoverPublicKey(
      personalMessageDigest(message),
      signature.subarray(0, 64),
      v - V_OFFSET,
    );
  } catch (cause) {
    throw new InvalidInputError('invalid signature: no public key recovers from it', { cause });
  }
  return `0x${Buffer.from(keccak256(publicKey.subarray(1)).subarray(12)).toString('hex')}`;
}
