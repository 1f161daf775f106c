import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SigningKey, Wallet } from 'ethers';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { loadOrCreateNodeKey, openNodeKey } from '../../src/daemon/datadir/node-key.js';
import { ServerError } from '../../src/shared/errors.js';

let dir: string;
let path: string;

beforeAll(() => initCrypto());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-cli-node-key-'));
  path = join(dir, 'node_key.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('node key', () => {
  it('is made on first use, kept private, and the same key on the next start', () => {
    const made = loadOrCreateNodeKey(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
    expect(Object.keys(record)).toEqual(['privateKey']);
    const hex = `0x${record.privateKey}`;
    const loaded = loadOrCreateNodeKey(path);
    expect(Buffer.from(loaded.privateKey).toString('hex')).toBe(record.privateKey);
    expect(loaded.address).toBe(new Wallet(hex).address.toLowerCase());
    expect(`0x${Buffer.from(loaded.publicKey).toString('hex')}`).toBe(
      SigningKey.computePublicKey(hex, true),
    );
    expect(made.publicKey).toEqual(loaded.publicKey);
  });

  it('reads a file that also names the address, as earlier versions wrote it', () => {
    const privateKey = '42'.repeat(32);
    writeFileSync(path, JSON.stringify({ address: '0xdead', privateKey }));
    expect(loadOrCreateNodeKey(path).address).toBe(
      new Wallet(`0x${privateKey}`).address.toLowerCase(),
    );
  });

  it.each([
    ['not JSON', 'node key'],
    [JSON.stringify({ privateKey: 'abc' }), 'privateKey must be 64 hex digits'],
    [JSON.stringify({ privateKey: '00'.repeat(32) }), 'not in the secp256k1 scalar range'],
  ])('refuses a damaged file (%s) instead of replacing it', (content, reason) => {
    writeFileSync(path, content);
    expect(() => loadOrCreateNodeKey(path)).toThrow(ServerError);
    expect(() => loadOrCreateNodeKey(path)).toThrow(`the node key ${path} is damaged`);
    expect(() => loadOrCreateNodeKey(path)).toThrow(reason);
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  it('refuses a path it cannot read', () => {
    mkdirSync(path);
    expect(() => loadOrCreateNodeKey(path)).toThrow(`cannot read the node key ${path}`);
  });
});

describe('node key under a passphrase (--node-key.password-file)', () => {
  const protection = () => {
    const passwordFile = join(dir, 'password.txt');
    writeFileSync(passwordFile, 'correct horse\n');
    return { passwordFile, kdf: 'light' as const };
  };

  it('writes a new key as a v3 keystore (0600) that ethers decrypts, and opens it again', async () => {
    const made = await openNodeKey(path, protection());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(Buffer.from(made.privateKey).toString('hex'));
    const wallet = await Wallet.fromEncryptedJson(text, 'correct horse');
    expect(wallet.address.toLowerCase()).toBe(made.address);
    expect((await openNodeKey(path, protection())).address).toBe(made.address);
  });

  it('encrypts a plain key in place, keeping the key', async () => {
    const plain = loadOrCreateNodeKey(path);
    expect((await openNodeKey(path, protection())).address).toBe(plain.address);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toHaveProperty('crypto');
  });

  it('names the flag for a wrong passphrase and for an encrypted key without one', async () => {
    await openNodeKey(path, protection());
    writeFileSync(join(dir, 'password.txt'), 'wrong\n');
    await expect(
      openNodeKey(path, { passwordFile: join(dir, 'password.txt'), kdf: 'light' }),
    ).rejects.toThrow(`cannot decrypt the node key ${path} with --node-key.password-file`);
    await expect(openNodeKey(path, { passwordFile: undefined, kdf: 'light' })).rejects.toThrow(
      `the node key ${path} is encrypted: give its passphrase with --node-key.password-file`,
    );
  });
});
