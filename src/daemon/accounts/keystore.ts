/**
 * Encrypted key files in the Web3 Secret Storage v3 format, compatible with geth and ethers.
 *
 * A passphrase is stretched by the KDF into a derived key DK; the private key is encrypted with
 * AES-128-CTR under DK[0..16], and MAC = keccak256(DK[16..32] ‖ ciphertext) tells a wrong
 * passphrase from a right one before the plaintext is trusted. Both functions need
 * `initCrypto()` to have resolved. The KDF (about 1 s of scrypt for a standard-strength file)
 * runs on the libuv thread pool, so both return promises and never block the event loop.
 */
import {
  createCipheriv,
  createDecipheriv,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import { ConflictError, InvalidInputError } from '../../shared/errors.js';
import { keccak256 } from '../crypto/wasm-crypto.js';
import { parseKeystore } from './keystore-format.js';
import type { KeystoreCrypto, KeystoreV3, ParsedKeystore } from './keystore-format.js';
import { SCRYPT_PRESETS, deriveKey } from './keystore-kdf.js';
import type { KdfStrength } from './keystore-kdf.js';
import { addressOfPrivateKey, assertValidPrivateKey } from './private-key.js';

export type { KeystoreV3 } from './keystore-format.js';
export type { KdfStrength } from './keystore-kdf.js';

/** geth's wording, which wallets and scripts match on. */
export const WRONG_PASSPHRASE_MESSAGE = 'could not decrypt key with given password';

/**
 * The refusal of a passphrase that does not open a key: the parameter is well formed, the key
 * just does not open with it, so geth answers it as a failed request (-32000), not -32602.
 */
export const wrongPassphrase = (): ConflictError => new ConflictError(WRONG_PASSPHRASE_MESSAGE);

const CIPHER = 'aes-128-ctr';
const SALT_BYTES = 32;
const IV_BYTES = 16;

/** Options of {@link encryptKey}. */
export interface EncryptKeyOptions {
  /** `standard` (default) for real keys; `light` only for tests and development chains. */
  kdf?: KdfStrength;
}

/**
 * Encrypts a 32-byte secp256k1 private key with `passphrase` (UTF-8) into a v3 key file
 * (scrypt, AES-128-CTR) with a fresh salt, IV and UUID.
 *
 * @throws InvalidInputError if the private key is not a valid secp256k1 key.
 * @example
 * await initCrypto();
 * const file = await encryptKey(privateKey, 'correct horse', { kdf: 'light' });
 * file.address; // 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266'
 */
export async function encryptKey(
  privateKey: Uint8Array,
  passphrase: string,
  opts: EncryptKeyOptions = {},
): Promise<KeystoreV3> {
  assertValidPrivateKey(privateKey);
  const kdf = {
    kdf: 'scrypt' as const,
    kdfparams: {
      ...SCRYPT_PRESETS[opts.kdf ?? 'standard'],
      salt: randomBytes(SALT_BYTES).toString('hex'),
    },
  };
  const iv = randomBytes(IV_BYTES);
  const derivedKey = await deriveKey(Buffer.from(passphrase, 'utf8'), kdf);
  try {
    const cipher = createCipheriv(CIPHER, derivedKey.subarray(0, 16), iv);
    const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
    return {
      address: addressOfPrivateKey(privateKey),
      id: randomUUID(),
      version: 3,
      crypto: {
        cipher: CIPHER,
        cipherparams: { iv: iv.toString('hex') },
        ciphertext: ciphertext.toString('hex'),
        ...kdf,
        mac: Buffer.from(macOf(derivedKey, ciphertext)).toString('hex'),
      },
    };
  } finally {
    derivedKey.fill(0);
  }
}

/**
 * Decrypts a v3 key file (a JSON string or a parsed object; scrypt or PBKDF2-HMAC-SHA256)
 * and returns the 32-byte private key.
 *
 * The passphrase is tried as given in UTF-8, as geth does, and then in Unicode NFKC form if that
 * differs, as ethers normalises it; so files from either open with the same passphrase.
 *
 * @throws ConflictError with {@link WRONG_PASSPHRASE_MESSAGE} when the MAC does not match;
 *   InvalidInputError with a message naming the field when the file is malformed; with
 *   "key content mismatch" when the key does not belong to the file's `address`.
 */
export async function decryptKey(json: unknown, passphrase: string): Promise<Uint8Array> {
  const keystore = parseKeystore(json);
  const candidates = new Set([passphrase, passphrase.normalize('NFKC')]);
  for (const candidate of candidates) {
    const privateKey = await tryDecrypt(keystore.crypto, Buffer.from(candidate, 'utf8'));
    if (privateKey) return checkedAgainstAddress(privateKey, keystore);
  }
  throw wrongPassphrase();
}

/** The private key, or `undefined` when the MAC shows the passphrase is wrong. */
async function tryDecrypt(
  crypto: KeystoreCrypto,
  password: Uint8Array,
): Promise<Uint8Array | undefined> {
  const derivedKey = await deriveKey(password, crypto);
  try {
    const ciphertext = Buffer.from(crypto.ciphertext, 'hex');
    const expectedMac = Buffer.from(crypto.mac, 'hex');
    if (!timingSafeEqual(macOf(derivedKey, ciphertext), expectedMac)) return undefined;
    const iv = Buffer.from(crypto.cipherparams.iv, 'hex');
    const decipher = createDecipheriv(CIPHER, derivedKey.subarray(0, 16), iv);
    return new Uint8Array(Buffer.concat([decipher.update(ciphertext), decipher.final()]));
  } finally {
    derivedKey.fill(0);
  }
}

function checkedAgainstAddress(privateKey: Uint8Array, keystore: ParsedKeystore): Uint8Array {
  const address = addressOfPrivateKey(privateKey);
  if (keystore.address !== undefined && keystore.address !== address) {
    throw new InvalidInputError(
      `key content mismatch: have account 0x${address}, want 0x${keystore.address}`,
    );
  }
  return privateKey;
}

function macOf(derivedKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  return keccak256(Buffer.concat([derivedKey.subarray(16, 32), ciphertext]));
}
