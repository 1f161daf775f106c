/**
 * The Web3 Secret Storage v3 document (the JSON key files geth, ethers and most wallets read and
 * write) and its validation. Validation is strict about what decryption needs and lenient where
 * real files differ: `Crypto` (geth's early capitalisation) is accepted for `crypto`, hex may
 * carry a `0x` prefix, and `address` and `id` may be missing.
 */
import { InvalidInputError } from '../../shared/errors.js';

/** scrypt parameters as stored in a key file. */
export interface ScryptParams {
  dklen: number;
  n: number;
  r: number;
  p: number;
  /** Hex, no `0x`. */
  salt: string;
}

/** PBKDF2 parameters as stored in a key file; the only PRF in use is HMAC-SHA256. */
export interface Pbkdf2Params {
  c: number;
  dklen: number;
  prf: 'hmac-sha256';
  /** Hex, no `0x`. */
  salt: string;
}

/** The key-derivation function of a file and its parameters. */
export type KeystoreKdf =
  { kdf: 'scrypt'; kdfparams: ScryptParams } | { kdf: 'pbkdf2'; kdfparams: Pbkdf2Params };

/** The `crypto` section; all byte strings are hex without `0x`. */
export type KeystoreCrypto = {
  cipher: 'aes-128-ctr';
  cipherparams: { iv: string };
  ciphertext: string;
  mac: string;
} & KeystoreKdf;

/** A v3 key file as this node writes it. */
export interface KeystoreV3 {
  /** 40 lowercase hex digits, no `0x`. */
  address: string;
  /** A random UUID v4. */
  id: string;
  version: 3;
  crypto: KeystoreCrypto;
}

/** A v3 key file as read: other writers may leave out `address` and `id`. */
export type ParsedKeystore = Omit<KeystoreV3, 'address' | 'id'> &
  Partial<Pick<KeystoreV3, 'address' | 'id'>>;

/**
 * Bounds on the key-derivation cost a file may ask for, so that a crafted file cannot make the
 * node spend minutes or gigabytes on one decryption. Standard scrypt uses 256 MiB (128·n·r).
 */
const MAX_SCRYPT_MEMORY_BYTES = 1024 * 1024 * 1024;
/** scrypt needs 128·n·r bytes, so neither n nor r can exceed this on its own. */
const MAX_SCRYPT_N_OR_R = MAX_SCRYPT_MEMORY_BYTES / 128;
const MAX_SCRYPT_P = 16;
const MAX_PBKDF2_ROUNDS = 10_000_000;
/** The cipher and the MAC need 32 bytes of derived key between them. */
const MIN_DKLEN = 32;
const MAX_SCRYPT_DKLEN = 64;
const MAX_PBKDF2_DKLEN = 64;

const PRIVATE_KEY_BYTES = 32;
const IV_BYTES = 16;
const MAC_BYTES = 32;

/**
 * Validates a key file given as a JSON string or an already parsed value, and returns it
 * normalised (lowercase hex without `0x`, `crypto` spelled in lowercase).
 *
 * @throws InvalidInputError naming the first bad field, e.g. `crypto.kdfparams.salt`.
 */
export function parseKeystore(json: unknown): ParsedKeystore {
  const document = typeof json === 'string' ? parseJson(json) : json;
  const root = expectObject(document, 'keystore');
  if (Number(root.version) !== 3) {
    throw bad('version', `unsupported keystore version ${JSON.stringify(root.version)}`);
  }
  const crypto = expectObject(root.crypto ?? root.Crypto, 'crypto');

  if (crypto.cipher !== 'aes-128-ctr') {
    throw bad('crypto.cipher', `unsupported cipher ${JSON.stringify(crypto.cipher)}`);
  }
  const cipherparams = expectObject(crypto.cipherparams, 'crypto.cipherparams');
  const common = {
    cipher: 'aes-128-ctr' as const,
    cipherparams: { iv: expectHex(cipherparams.iv, 'crypto.cipherparams.iv', IV_BYTES) },
    ciphertext: expectHex(crypto.ciphertext, 'crypto.ciphertext', PRIVATE_KEY_BYTES),
    mac: expectHex(crypto.mac, 'crypto.mac', MAC_BYTES),
  };
  const kdfparams = expectObject(crypto.kdfparams, 'crypto.kdfparams');
  let keystoreCrypto: KeystoreCrypto;
  if (crypto.kdf === 'scrypt') {
    keystoreCrypto = { ...common, kdf: 'scrypt', kdfparams: parseScryptParams(kdfparams) };
  } else if (crypto.kdf === 'pbkdf2') {
    keystoreCrypto = { ...common, kdf: 'pbkdf2', kdfparams: parsePbkdf2Params(kdfparams) };
  } else {
    throw bad('crypto.kdf', `unsupported key derivation function ${JSON.stringify(crypto.kdf)}`);
  }

  const parsed: ParsedKeystore = { version: 3, crypto: keystoreCrypto };
  if (root.address !== undefined) parsed.address = expectHex(root.address, 'address', 20);
  if (root.id !== undefined) {
    if (typeof root.id !== 'string') throw bad('id', 'must be a string');
    parsed.id = root.id;
  }
  return parsed;
}

function parseScryptParams(params: Record<string, unknown>): ScryptParams {
  const n = expectInteger(params.n, 'crypto.kdfparams.n', 2, MAX_SCRYPT_N_OR_R);
  if ((n & (n - 1)) !== 0) throw bad('crypto.kdfparams.n', 'must be a power of two');
  const r = expectInteger(params.r, 'crypto.kdfparams.r', 1, MAX_SCRYPT_N_OR_R);
  if (128 * n * r > MAX_SCRYPT_MEMORY_BYTES) {
    throw bad('crypto.kdfparams.n', `n·r needs more than ${MAX_SCRYPT_MEMORY_BYTES} bytes`);
  }
  return {
    dklen: expectInteger(params.dklen, 'crypto.kdfparams.dklen', MIN_DKLEN, MAX_SCRYPT_DKLEN),
    n,
    r,
    p: expectInteger(params.p, 'crypto.kdfparams.p', 1, MAX_SCRYPT_P),
    salt: expectHex(params.salt, 'crypto.kdfparams.salt'),
  };
}

function parsePbkdf2Params(params: Record<string, unknown>): Pbkdf2Params {
  if (params.prf !== 'hmac-sha256') {
    throw bad('crypto.kdfparams.prf', `unsupported PRF ${JSON.stringify(params.prf)}`);
  }
  return {
    c: expectInteger(params.c, 'crypto.kdfparams.c', 1, MAX_PBKDF2_ROUNDS),
    dklen: expectInteger(params.dklen, 'crypto.kdfparams.dklen', MIN_DKLEN, MAX_PBKDF2_DKLEN),
    prf: 'hmac-sha256',
    salt: expectHex(params.salt, 'crypto.kdfparams.salt'),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InvalidInputError('invalid keystore: not valid JSON', { cause });
  }
}

function bad(field: string, problem: string): InvalidInputError {
  return new InvalidInputError(`invalid keystore field ${field}: ${problem}`, {
    data: { field },
  });
}

function expectObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bad(field, 'missing or not an object');
  }
  return value as Record<string, unknown>;
}

function expectInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw bad(field, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function expectHex(value: unknown, field: string, bytes?: number): string {
  if (typeof value !== 'string') throw bad(field, 'missing or not a string');
  const hex = value.startsWith('0x') ? value.slice(2) : value;
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw bad(field, 'not a hex byte string');
  }
  if (bytes !== undefined && hex.length !== bytes * 2) {
    throw bad(field, `expected ${bytes} bytes, got ${hex.length / 2}`);
  }
  return hex.toLowerCase();
}
