/**
 * The node's own secp256k1 key: made on first start, kept in `<datadir>/node_key.json`
 * (mode 0600), and used as the validator key the consensus interface shows. A key file that
 * exists but cannot be read is an error, never silently replaced: the node's identity must
 * not change behind the operator's back.
 */
import { readFileSync } from 'node:fs';
import {
  addressOfPrivateKey,
  assertValidPrivateKey,
  generatePrivateKey,
} from '../accounts/private-key.js';
import { secp256k1KeyPair } from '../crypto/wasm-crypto.js';
import { ServerError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';

export interface NodeKey {
  privateKey: Uint8Array;
  /** 33-byte compressed public key. */
  publicKey: Uint8Array;
  /** Ethereum address of the key (0x, lower case). */
  address: string;
}

function fromPrivateKey(privateKey: Uint8Array): NodeKey {
  assertValidPrivateKey(privateKey);
  return {
    privateKey,
    publicKey: secp256k1KeyPair(privateKey).subarray(32),
    address: addressOfPrivateKey(privateKey),
  };
}

export function loadOrCreateNodeKey(path: string): NodeKey {
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ServerError(`cannot read the node key ${path}: ${(error as Error).message}`);
    }
  }
  if (text === undefined) {
    const key = fromPrivateKey(generatePrivateKey());
    const record = {
      address: key.address,
      privateKey: Buffer.from(key.privateKey).toString('hex'),
    };
    writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`, 0o600);
    return key;
  }
  try {
    const record = JSON.parse(text) as { privateKey?: unknown };
    if (typeof record.privateKey !== 'string' || !/^[0-9a-f]{64}$/i.test(record.privateKey)) {
      throw new Error('privateKey must be 64 hex digits');
    }
    return fromPrivateKey(Uint8Array.from(Buffer.from(record.privateKey, 'hex')));
  } catch (error) {
    throw new ServerError(`the node key ${path} is damaged: ${(error as Error).message}`);
  }
}
