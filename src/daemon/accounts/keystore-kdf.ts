/**
 * Key derivation for key files: passphrase bytes to the derived key whose first half is the
 * AES-128 key and whose second half authenticates the ciphertext. scrypt runs in the wasm
 * module; PBKDF2 runs in node:crypto because the wasm `pbkdf2` is fixed to HMAC-SHA512.
 */
import { pbkdf2Sync } from 'node:crypto';
import { scrypt } from '../crypto/wasm-crypto.js';
import type { KeystoreKdf, ScryptParams } from './keystore-format.js';

/** Key-derivation strength of a new key file. */
export type KdfStrength = 'standard' | 'light';

/**
 * scrypt parameters without the salt. `standard` is geth's StandardScrypt (about 1.8 s and
 * 256 MiB through wasm); `light` is geth's LightScrypt, for tests and development only.
 */
export const SCRYPT_PRESETS: Record<KdfStrength, Omit<ScryptParams, 'salt'>> = {
  standard: { n: 1 << 18, r: 8, p: 1, dklen: 32 },
  light: { n: 1 << 12, r: 8, p: 6, dklen: 32 },
};

/**
 * Derives `dklen` bytes from `password` with the file's KDF. The parameters must already be
 * validated (`parseKeystore`), which guarantees a power-of-two `n` and 32 ≤ dklen ≤ 64.
 */
export function deriveKey(password: Uint8Array, kdf: KeystoreKdf): Uint8Array {
  const salt = Buffer.from(kdf.kdfparams.salt, 'hex');
  if (kdf.kdf === 'pbkdf2') {
    const { c, dklen } = kdf.kdfparams;
    return new Uint8Array(pbkdf2Sync(password, salt, c, dklen, 'sha256'));
  }
  const { n, r, p, dklen } = kdf.kdfparams;
  const full = scrypt(password, salt, Math.log2(n), r, p);
  const derived = full.slice(0, dklen);
  full.fill(0);
  return derived;
}
