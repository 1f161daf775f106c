/**
 * Key derivation for key files: passphrase bytes to the derived key whose first half is the
 * AES-128 key and whose second half authenticates the ciphertext. Both KDFs run in node:crypto's
 * asynchronous functions, on the libuv thread pool: a standard scrypt takes about a second of
 * CPU, and unlocking an account must not stall block production or other JSON-RPC calls.
 */
import { pbkdf2, scrypt } from 'node:crypto';
import type { KeystoreKdf, ScryptParams } from './keystore-format.js';

/** Key-derivation strength of a new key file. */
export type KdfStrength = 'standard' | 'light';

/**
 * scrypt parameters without the salt. `standard` is geth's StandardScrypt (about 1 s and
 * 256 MiB); `light` is geth's LightScrypt, for tests and development only.
 */
export const SCRYPT_PRESETS: Record<KdfStrength, Omit<ScryptParams, 'salt'>> = {
  standard: { n: 1 << 18, r: 8, p: 1, dklen: 32 },
  light: { n: 1 << 12, r: 8, p: 6, dklen: 32 },
};

/** node:crypto refuses scrypt above `maxmem`; its need is about 128·n·r plus 128·r·p bytes. */
const SCRYPT_MEMORY_SLACK = 1024 * 1024;

/**
 * Derives `dklen` bytes from `password` with the file's KDF, off the event loop. The parameters
 * must already be validated (`parseKeystore`), which bounds their cost.
 */
export function deriveKey(password: Uint8Array, kdf: KeystoreKdf): Promise<Uint8Array> {
  const salt = Buffer.from(kdf.kdfparams.salt, 'hex');
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, key: Buffer) =>
      error ? reject(error) : resolve(new Uint8Array(key.buffer, key.byteOffset, key.length));
    if (kdf.kdf === 'pbkdf2') {
      const { c, dklen } = kdf.kdfparams;
      pbkdf2(password, salt, c, dklen, 'sha256', done);
      return;
    }
    const { n, r, p, dklen } = kdf.kdfparams;
    const maxmem = 128 * n * r + 128 * r * p + SCRYPT_MEMORY_SLACK;
    scrypt(password, salt, dklen, { N: n, r, p, maxmem }, done);
  });
}
