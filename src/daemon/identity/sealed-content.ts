/**
 * Content encrypted to the node's identity key: ECIES over secp256k1 in the format of the
 * `eciesjs` package (ephemeral uncompressed public key ‖ 16-byte nonce ‖ GCM tag ‖ ciphertext;
 * key = HKDF-SHA256 of ephemeral key ‖ shared point, AES-256-GCM), so anyone with the node's
 * public key and eciesjs (or a compatible library: eciespy, ecies-rs) can encrypt for it.
 * The plaintext is the RFC 8785 canonical JSON of the value.
 */
import type { decrypt, encrypt } from 'eciesjs';
import type { Config } from 'eciesjs/config';
import type { SealedContent } from '../../shared/rest-api.js';
import { InvalidInputError } from '../../shared/errors.js';
import { parseExactJson } from '../../shared/exact-json.js';
import { canonicalBytes } from './signed-content.js';

/** The `algorithm` of every encrypted record. */
export const ENCRYPTION_ALGORITHM = 'ecies-secp256k1-hkdf-sha256-aes-256-gcm';

interface Ecies {
  encrypt: typeof encrypt;
  decrypt: typeof decrypt;
  config: Config;
}

let loaded: Promise<Ecies> | undefined;

/**
 * eciesjs, loaded on first use: its curves are set up as it loads (several ms), on every start
 * of a daemon that most often never encrypts. The configuration is our own rather than
 * eciesjs's global `ECIES_CONFIG`, which any other importer could change; a fresh `Config` holds
 * the defaults: secp256k1, uncompressed ephemeral key and HKDF input, AES-256-GCM with a 16-byte
 * nonce.
 */
function ecies(): Promise<Ecies> {
  loaded ??= Promise.all([import('eciesjs'), import('eciesjs/config')]).then(
    ([{ encrypt, decrypt }, { Config }]) => ({ encrypt, decrypt, config: new Config() }),
  );
  return loaded;
}

export async function sealContent(data: unknown, publicKey: Uint8Array): Promise<SealedContent> {
  const { encrypt, config } = await ecies();
  const ciphertext = encrypt(publicKey, canonicalBytes(data), config);
  return {
    ciphertext: `0x${Buffer.from(ciphertext).toString('hex')}`,
    publicKey: `0x${Buffer.from(publicKey).toString('hex')}`,
    algorithm: ENCRYPTION_ALGORITHM,
  };
}

/**
 * The JSON value sealed in `ciphertext` (0x-hex).
 *
 * @throws InvalidInputError when it was not made for this key, was altered, or holds no JSON.
 */
export async function openContent(ciphertext: string, privateKey: Uint8Array): Promise<unknown> {
  const { decrypt, config } = await ecies();
  let plaintext: Uint8Array;
  try {
    plaintext = decrypt(privateKey, Buffer.from(ciphertext.slice(2), 'hex'), config);
  } catch (cause) {
    throw new InvalidInputError(
      'data.ciphertext cannot be decrypted: not encrypted to this node key, or altered',
      { cause },
    );
  }
  // Read as request bodies are: a number JavaScript cannot hold exactly would be answered rounded.
  return parseExactJson(
    Buffer.from(plaintext).toString('utf8'),
    'the record data.ciphertext seals',
  );
}
