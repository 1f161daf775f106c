import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createCipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Wallet, encryptKeystoreJson, keccak256 as ethersKeccak256 } from 'ethers';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../src/shared/errors.js';
import { KeystoreDirectory, keyFileName } from '../../src/daemon/accounts/keystore-dir.js';
import {
  WRONG_PASSPHRASE_MESSAGE,
  decryptKey,
  encryptKey,
} from '../../src/daemon/accounts/keystore.js';
import type { KeystoreV3 } from '../../src/daemon/accounts/keystore.js';
import {
  addressOfPrivateKey,
  assertValidPrivateKey,
} from '../../src/daemon/accounts/private-key.js';

/** Account 0 of the `test test ... junk` mnemonic. */
const DEV_KEY_HEX = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const DEV_KEY = new Uint8Array(Buffer.from(DEV_KEY_HEX, 'hex'));
const DEV_ADDRESS = 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const PASSPHRASE = 'correct horse battery staple';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

async function expectInvalidInput(run: () => unknown, message: string | RegExp): Promise<void> {
  let thrown: unknown;
  try {
    await run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(InvalidInputError);
  expect((thrown as Error).message).toMatch(message);
}

/** geth answers a wrong passphrase -32000, so it is not an input error (-32602). */
async function expectWrongPassphrase(run: () => Promise<unknown>): Promise<void> {
  await expect(run()).rejects.toThrow(new ConflictError(WRONG_PASSPHRASE_MESSAGE));
  await expect(run()).rejects.toBeInstanceOf(ConflictError);
}

/** A PBKDF2 key file built only with node:crypto and ethers, independent of the code under test. */
function pbkdf2KeyFile(privateKey: Uint8Array, password: string): Record<string, unknown> {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = pbkdf2Sync(password, salt, 1024, 32, 'sha256');
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
  const mac = ethersKeccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2);
  return {
    version: 3,
    id: '0b8f1e0c-6f55-4a8e-9d59-0d4f33e6f1a2',
    address: DEV_ADDRESS,
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'pbkdf2',
      kdfparams: { c: 1024, dklen: 32, prf: 'hmac-sha256', salt: salt.toString('hex') },
      mac,
    },
  };
}

beforeAll(() => initCrypto());

describe('private key', () => {
  it('derives the address of a known key', () => {
    expect(addressOfPrivateKey(DEV_KEY)).toBe(DEV_ADDRESS);
    expect(addressOfPrivateKey(DEV_KEY)).toBe(
      new Wallet(DEV_KEY_HEX).address.slice(2).toLowerCase(),
    );
  });

  it('refuses keys outside the secp256k1 scalar range', async () => {
    const order = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
    await expectInvalidInput(() => assertValidPrivateKey(new Uint8Array(32)), /scalar range/);
    await expectInvalidInput(
      () => assertValidPrivateKey(Buffer.from(order, 'hex')),
      /scalar range/,
    );
    await expectInvalidInput(() => assertValidPrivateKey(new Uint8Array(31).fill(1)), /32 bytes/);
  });
});

describe('encryptKey / decryptKey', () => {
  it('round-trips with the light KDF and writes a complete v3 document', async () => {
    const file = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
    expect(file.version).toBe(3);
    expect(file.address).toBe(DEV_ADDRESS);
    expect(file.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(file.crypto).toMatchObject({
      cipher: 'aes-128-ctr',
      kdf: 'scrypt',
      kdfparams: { n: 4096, r: 8, p: 6, dklen: 32 },
    });
    expect(file.crypto.cipherparams.iv).toMatch(/^[0-9a-f]{32}$/);
    expect(file.crypto.ciphertext).toMatch(/^[0-9a-f]{64}$/);
    expect(file.crypto.mac).toMatch(/^[0-9a-f]{64}$/);
    expect(file.crypto.kdfparams.salt).toMatch(/^[0-9a-f]{64}$/);
    expect(file.crypto.ciphertext).not.toBe(DEV_KEY_HEX);

    expect(hex(await decryptKey(file, PASSPHRASE))).toBe(DEV_KEY_HEX);
    expect(hex(await decryptKey(JSON.stringify(file), PASSPHRASE))).toBe(DEV_KEY_HEX);
  });

  it('uses fresh randomness for every file', async () => {
    const a = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
    const b = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
    expect(a.id).not.toBe(b.id);
    expect(a.crypto.kdfparams.salt).not.toBe(b.crypto.kdfparams.salt);
    expect(a.crypto.cipherparams.iv).not.toBe(b.crypto.cipherparams.iv);
  });

  it('round-trips with the standard scrypt parameters', async () => {
    const file = await encryptKey(DEV_KEY, PASSPHRASE);
    expect(file.crypto.kdfparams).toMatchObject({ n: 262144, r: 8, p: 1, dklen: 32 });
    expect(hex(await decryptKey(file, PASSPHRASE))).toBe(DEV_KEY_HEX);
  });

  it('rejects a wrong passphrase with geth’s message', async () => {
    const file = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
    await expectWrongPassphrase(() => decryptKey(file, 'wrong'));
    expect(WRONG_PASSPHRASE_MESSAGE).toBe('could not decrypt key with given password');
  });

  it('decrypts a key file written by ethers v6', async () => {
    const json = await encryptKeystoreJson(
      { address: new Wallet(DEV_KEY_HEX).address, privateKey: `0x${DEV_KEY_HEX}` },
      PASSPHRASE,
      { scrypt: { N: 4096 } },
    );
    expect(hex(await decryptKey(json, PASSPHRASE))).toBe(DEV_KEY_HEX);
  });

  it('opens an ethers file whose passphrase ethers normalised to NFKC', async () => {
    const decomposed = 'cafe\u0301';
    const json = await encryptKeystoreJson(
      { address: new Wallet(DEV_KEY_HEX).address, privateKey: `0x${DEV_KEY_HEX}` },
      decomposed,
      { scrypt: { N: 4096 } },
    );
    expect(hex(await decryptKey(json, decomposed))).toBe(DEV_KEY_HEX);
  });

  it('writes files that ethers v6 decrypts to the same account', async () => {
    const file = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
    const wallet = await Wallet.fromEncryptedJson(JSON.stringify(file), PASSPHRASE);
    expect(wallet.address.toLowerCase()).toBe(`0x${DEV_ADDRESS}`);
    expect(wallet.privateKey).toBe(`0x${DEV_KEY_HEX}`);
  });

  it('decrypts a PBKDF2-HMAC-SHA256 file', async () => {
    const file = pbkdf2KeyFile(DEV_KEY, PASSPHRASE);
    const wallet = await Wallet.fromEncryptedJson(JSON.stringify(file), PASSPHRASE);
    expect(wallet.privateKey).toBe(`0x${DEV_KEY_HEX}`);
    expect(hex(await decryptKey(file, PASSPHRASE))).toBe(DEV_KEY_HEX);
    await expectWrongPassphrase(() => decryptKey(file, 'wrong'));
  });

  it('decrypts the Web3 Secret Storage PBKDF2 test vector', async () => {
    const vector = {
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
        ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
        kdf: 'pbkdf2',
        kdfparams: {
          c: 262144,
          dklen: 32,
          prf: 'hmac-sha256',
          salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
        },
        mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
      },
      id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
      version: 3,
    };
    expect(hex(await decryptKey(vector, 'testpassword'))).toBe(
      '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d',
    );
  });

  it('refuses a file whose key does not belong to its address', async () => {
    const file = {
      ...(await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' })),
      address: '00'.repeat(20),
    };
    await expectInvalidInput(() => decryptKey(file, PASSPHRASE), /key content mismatch/);
  });

  it('names the bad field of a malformed file', async () => {
    const good = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
    const withCrypto = (patch: Record<string, unknown>) => ({
      ...good,
      crypto: { ...good.crypto, ...patch },
    });
    const withKdfParams = (patch: Record<string, unknown>) =>
      withCrypto({ kdfparams: { ...good.crypto.kdfparams, ...patch } });

    await expectInvalidInput(() => decryptKey('{not json', PASSPHRASE), /not valid JSON/);
    await expectInvalidInput(() => decryptKey(42, PASSPHRASE), /field keystore/);
    await expectInvalidInput(
      () => decryptKey({ ...good, version: 1 }, PASSPHRASE),
      /field version/,
    );
    await expectInvalidInput(
      () => decryptKey({ ...good, crypto: undefined }, PASSPHRASE),
      /field crypto:/,
    );
    await expectInvalidInput(
      () => decryptKey(withCrypto({ cipher: 'aes-256-gcm' }), PASSPHRASE),
      /crypto\.cipher/,
    );
    await expectInvalidInput(
      () => decryptKey(withCrypto({ kdf: 'argon2' }), PASSPHRASE),
      /crypto\.kdf:/,
    );
    await expectInvalidInput(
      () => decryptKey(withCrypto({ mac: 'zz' }), PASSPHRASE),
      /crypto\.mac/,
    );
    await expectInvalidInput(
      () => decryptKey(withCrypto({ ciphertext: 'abcd' }), PASSPHRASE),
      /crypto\.ciphertext: expected 32 bytes/,
    );
    await expectInvalidInput(
      () => decryptKey(withCrypto({ cipherparams: {} }), PASSPHRASE),
      /crypto\.cipherparams\.iv/,
    );
    await expectInvalidInput(
      () => decryptKey(withKdfParams({ salt: 12 }), PASSPHRASE),
      /crypto\.kdfparams\.salt/,
    );
    await expectInvalidInput(
      () => decryptKey(withKdfParams({ n: 4095 }), PASSPHRASE),
      /crypto\.kdfparams\.n: must be a power of two/,
    );
    await expectInvalidInput(
      () => decryptKey(withKdfParams({ dklen: 16 }), PASSPHRASE),
      /crypto\.kdfparams\.dklen/,
    );
  });

  it('refuses KDF parameters that would take minutes or gigabytes', async () => {
    const good = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
    const costly = (kdfparams: Record<string, unknown>) => ({
      ...good,
      crypto: { ...good.crypto, kdfparams: { ...good.crypto.kdfparams, ...kdfparams } },
    });
    await expectInvalidInput(
      () => decryptKey(costly({ n: 2 ** 22, r: 8 }), PASSPHRASE),
      /crypto\.kdfparams\.n/,
    );
    await expectInvalidInput(
      () => decryptKey(costly({ p: 1000 }), PASSPHRASE),
      /crypto\.kdfparams\.p/,
    );
  });

  it('accepts geth’s early `Crypto` spelling and 0x-prefixed hex', async () => {
    const { crypto, ...rest } = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
    const legacy = { ...rest, Crypto: { ...crypto, mac: `0x${crypto.mac.toUpperCase()}` } };
    expect(hex(await decryptKey(legacy, PASSPHRASE))).toBe(DEV_KEY_HEX);
  });

  it('refuses to encrypt an invalid private key', async () => {
    await expectInvalidInput(
      () => encryptKey(new Uint8Array(32), PASSPHRASE, { kdf: 'light' }),
      /invalid private key/,
    );
  });
});

describe('KeystoreDirectory', () => {
  let root: string;
  let keystoreDir: string;
  let lightFile: KeystoreV3;

  beforeAll(async () => {
    lightFile = await encryptKey(DEV_KEY, PASSPHRASE, { kdf: 'light' });
  });

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'keystore-test-'));
    keystoreDir = join(root, 'keystore');
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('stores a file named like geth’s, mode 0600, in a 0700 directory, atomically', async () => {
    const directory = new KeystoreDirectory(keystoreDir);
    const path = await directory.store(lightFile);

    expect(basename(path)).toMatch(
      /^UTC--\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z--f39fd6e51aad88f6f4ce6ab8827279cfffb92266$/,
    );
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(keystoreDir)).mode & 0o777).toBe(0o700);
    expect(await readdir(keystoreDir)).toEqual([basename(path)]);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(lightFile);
  });

  it('formats key file names from UTC time', () => {
    const time = new Date(Date.UTC(2024, 4, 1, 12, 30, 45, 123));
    expect(keyFileName(DEV_ADDRESS, time)).toBe(`UTC--2024-05-01T12-30-45.123Z--${DEV_ADDRESS}`);
  });

  it('lists, finds (any case) and reads stored accounts', async () => {
    const directory = new KeystoreDirectory(keystoreDir);
    const otherKey = randomBytes(32);
    const other = await encryptKey(otherKey, PASSPHRASE, { kdf: 'light' });
    const first = await directory.store(lightFile);
    const second = await directory.store(other);

    const listed = await directory.list();
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(
      expect.arrayContaining([
        { address: `0x${DEV_ADDRESS}`, path: first },
        { address: `0x${other.address}`, path: second },
      ]),
    );

    const checksummed = new Wallet(DEV_KEY_HEX).address;
    expect(await directory.find(checksummed)).toEqual({ address: `0x${DEV_ADDRESS}`, path: first });
    expect(await directory.find(DEV_ADDRESS.toUpperCase())).toEqual({
      address: `0x${DEV_ADDRESS}`,
      path: first,
    });
    expect(await directory.find('0x' + '11'.repeat(20))).toBeUndefined();

    expect(hex(await decryptKey(await directory.read(checksummed), PASSPHRASE))).toBe(DEV_KEY_HEX);
    expect(hex(await decryptKey(await directory.read(other.address), PASSPHRASE))).toBe(
      hex(otherKey),
    );
  });

  it('refuses a second file for the same account', async () => {
    const directory = new KeystoreDirectory(keystoreDir);
    await directory.store(lightFile);
    await expect(
      directory.store(await encryptKey(DEV_KEY, 'other', { kdf: 'light' })),
    ).rejects.toThrow(ConflictError);
    expect(await directory.list()).toHaveLength(1);
  });

  it('is empty when the directory does not exist yet', async () => {
    const directory = new KeystoreDirectory(keystoreDir);
    expect(await directory.list()).toEqual([]);
    await expect(directory.read(DEV_ADDRESS)).rejects.toThrow(NotFoundError);
  });

  it('skips files that are not key files without failing', async () => {
    const directory = new KeystoreDirectory(keystoreDir);
    const stored = await directory.store(lightFile);
    await writeFile(join(keystoreDir, 'README'), 'keys live here');
    await writeFile(join(keystoreDir, 'notes.txt'), 'not json');
    await writeFile(join(keystoreDir, 'empty'), '');
    await writeFile(join(keystoreDir, 'other.json'), JSON.stringify({ hello: 'world' }));
    await writeFile(join(keystoreDir, 'big'), 'x'.repeat(200 * 1024));
    await writeFile(join(keystoreDir, `.hidden-${DEV_ADDRESS}`), JSON.stringify(lightFile));
    await writeFile(join(keystoreDir, `${basename(stored)}.abc.tmp`), JSON.stringify(lightFile));
    await mkdir(join(keystoreDir, 'subdir'));

    expect(await directory.list()).toEqual([{ address: `0x${DEV_ADDRESS}`, path: stored }]);
  });

  it('finds accounts by file content, whatever the file name', async () => {
    const directory = new KeystoreDirectory(keystoreDir);
    await mkdir(keystoreDir);
    const path = join(keystoreDir, 'my-key.json');
    await writeFile(path, JSON.stringify(lightFile));
    expect(await directory.find(DEV_ADDRESS)).toEqual({ address: `0x${DEV_ADDRESS}`, path });
  });

  it('reports a damaged key file by path and field', async () => {
    const directory = new KeystoreDirectory(keystoreDir);
    await mkdir(keystoreDir);
    const name = keyFileName(DEV_ADDRESS, new Date());
    const damaged = { ...lightFile, crypto: { ...lightFile.crypto, mac: 'not-hex' } };
    await writeFile(join(keystoreDir, name), JSON.stringify(damaged));

    expect(await directory.list()).toEqual([]);
    await expect(directory.read(DEV_ADDRESS)).rejects.toThrow(InvalidInputError);
    await expect(directory.read(DEV_ADDRESS)).rejects.toThrow(
      new RegExp(`damaged key file .*${name}: invalid keystore field crypto\\.mac`),
    );

    await writeFile(join(keystoreDir, name), JSON.stringify(lightFile).slice(0, 100));
    await expect(directory.read(DEV_ADDRESS)).rejects.toThrow(/damaged key file .*not valid JSON/);
  });

  it('refuses a malformed address', async () => {
    const directory = new KeystoreDirectory(keystoreDir);
    await expect(directory.find('0x1234')).rejects.toThrow(InvalidInputError);
  });
});
