/**
 * The node's own secp256k1 key: made on first start, kept in `<datadir>/node_key.json`
 * (mode 0600) as `{"privateKey": "<64 hex digits>"}` (like CometBFT's `node_key.json`, only the
 * private key) or, with `--node-key.password-file`, as a v3 keystore, and used as the validator key the consensus interface shows and as the node's
 * identity key, with which the REST interface signs and decrypts (`docs/rest.md`). A key file that
 * exists but cannot be read is an error, never silently replaced: the node's identity must
 * not change behind the operator's back.
 */
import { readFileSync } from 'node:fs';
import { readBoundedTextSync, SECRET_FILE_MAX_BYTES } from '../../shared/bounded-read.js';
import {
  addressOfPublicKey,
  assertValidPrivateKey,
  generatePrivateKey,
  publicKeyOfPrivateKey,
} from '../accounts/private-key.js';
import { decryptKey, encryptKey, type KdfStrength } from '../accounts/keystore.js';
import { ServerError } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/atomic-write.js';

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

/** The `--node-key.password-file` flag, named in the errors about an encrypted key. */
const PASSWORD_FLAG = '--node-key.password-file';

function readKeyFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ServerError(`cannot read the node key ${path}: ${(error as Error).message}`);
    }
    return undefined;
  }
}

function parseKeyFile(path: string, text: string): { plain?: NodeKey; keystore?: unknown } {
  try {
    const record = JSON.parse(text) as { privateKey?: unknown; crypto?: unknown };
    if (record.crypto !== undefined) return { keystore: record };
    if (typeof record.privateKey !== 'string' || !/^[0-9a-f]{64}$/i.test(record.privateKey)) {
      throw new Error('privateKey must be 64 hex digits');
    }
    return { plain: new NodeKey(Uint8Array.from(Buffer.from(record.privateKey, 'hex'))) };
  } catch (error) {
    throw new ServerError(`the node key ${path} is damaged: ${(error as Error).message}`);
  }
}

function writePlainKey(path: string, key: NodeKey): void {
  const record = { privateKey: Buffer.from(key.privateKey).toString('hex') };
  writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`, 0o600);
}

/** The plain node key of `path`, made on first use. */
export function loadOrCreateNodeKey(path: string): NodeKey {
  const text = readKeyFile(path);
  if (text === undefined) {
    const key = new NodeKey(generatePrivateKey());
    writePlainKey(path, key);
    return key;
  }
  const { plain } = parseKeyFile(path, text);
  if (!plain) {
    throw new ServerError(
      `the node key ${path} is encrypted: give its passphrase with ${PASSWORD_FLAG}`,
    );
  }
  return plain;
}

/** How the node key is kept: plain, or in a v3 keystore under a passphrase. */
export interface NodeKeyProtection {
  /** File whose first line is the passphrase (`--node-key.password-file`); absent: plain. */
  passwordFile: string | undefined;
  kdf: KdfStrength;
}

/** A password file holds one line; one longer than this is no password file (/dev/zero). */

function readPassphrase(passwordFile: string): string {
  try {
    return readBoundedTextSync(passwordFile, SECRET_FILE_MAX_BYTES).split(/\r?\n/)[0];
  } catch (error) {
    throw new ServerError(
      `cannot read ${PASSWORD_FLAG} ${passwordFile}: ${(error as Error).message}`,
    );
  }
}

/**
 * The node key of `path`, made on first use. With a password file the key is kept as a v3
 * keystore (scrypt, AES-128-CTR; what geth and ethers read) under the file's first line: a
 * new key is written encrypted, a plain one is encrypted in place, an encrypted one is
 * decrypted. Without one the key is kept plain with mode 0600 (dev mode), and an encrypted key
 * stops the start with a message naming the flag. Requires `initCrypto()` to have resolved.
 */
export async function openNodeKey(path: string, protection: NodeKeyProtection): Promise<NodeKey> {
  if (protection.passwordFile === undefined) return loadOrCreateNodeKey(path);
  const passphrase = readPassphrase(protection.passwordFile);
  const text = readKeyFile(path);
  const parsed = text === undefined ? {} : parseKeyFile(path, text);
  if (parsed.keystore !== undefined) {
    try {
      return new NodeKey(await decryptKey(parsed.keystore, passphrase));
    } catch (error) {
      throw new ServerError(
        `cannot decrypt the node key ${path} with ${PASSWORD_FLAG}: ${(error as Error).message}`,
      );
    }
  }
  const key = parsed.plain ?? new NodeKey(generatePrivateKey());
  const keystore = await encryptKey(key.privateKey, passphrase, { kdf: protection.kdf });
  writeFileAtomic(path, `${JSON.stringify(keystore, null, 2)}\n`, 0o600);
  return key;
}
