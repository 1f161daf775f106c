/**
 * The node's own secp256k1 key: made on first start, kept in `<datadir>/node_key.json`
 * (mode 0600) as `{"privateKey": "<64 hex digits>"}` (like CometBFT's `node_key.json`, only the
 * private key), and used as the validator key the consensus interface shows and as the node's
 * identity key, with which the REST interface signs and decrypts (`docs/rest.md`). A key file that
 * exists but cannot be read is an error, never silently replaced: the node's identity must
 * not change behind the operator's back.
 */
import { readFileSync } from 'node:fs';
import {
  addressOfPublicKey,
  assertValidPrivateKey,
  generatePrivateKey,
  publicKeyOfPrivateKey,
} from '../accounts/private-key.js';
import { ServerError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';

/**
 * The node key. Its public key and address are worked out on first use: the first secp256k1
 * operation of a process costs about 0.1 s (the WebAssembly builds its tables), and a daemon
 * should answer before anyone asks for its identity.
 */
export class NodeKey {
  private derived: { publicKey: Uint8Array; address: string } | undefined;

  /** @throws InvalidInputError unless `privateKey` is a usable secp256k1 key. */
  constructor(readonly privateKey: Uint8Array) {
    assertValidPrivateKey(privateKey);
  }

  /** 33-byte compressed public key. */
  get publicKey(): Uint8Array {
    return this.derive().publicKey;
  }

  /** Ethereum address of the key (0x, lower case). */
  get address(): string {
    return this.derive().address;
  }

  private derive(): { publicKey: Uint8Array; address: string } {
    if (this.derived === undefined) {
      const publicKey = publicKeyOfPrivateKey(this.privateKey);
      this.derived = { publicKey, address: `0x${addressOfPublicKey(publicKey)}` };
    }
    return this.derived;
  }
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
    const key = new NodeKey(generatePrivateKey());
    const record = { privateKey: Buffer.from(key.privateKey).toString('hex') };
    writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`, 0o600);
    return key;
  }
  try {
    const record = JSON.parse(text) as { privateKey?: unknown };
    if (typeof record.privateKey !== 'string' || !/^[0-9a-f]{64}$/i.test(record.privateKey)) {
      throw new Error('privateKey must be 64 hex digits');
    }
    return new NodeKey(Uint8Array.from(Buffer.from(record.privateKey, 'hex')));
  } catch (error) {
    throw new ServerError(`the node key ${path} is damaged: ${(error as Error).message}`);
  }
}
