import { afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import {
  AccountManager,
  LOCKED_ACCOUNT_MESSAGE,
  MAX_UNLOCK_SECONDS,
} from '../../src/daemon/accounts/account-manager.js';
import { KeyDerivationSlots } from '../../src/daemon/accounts/key-derivation-slots.js';
import { WRONG_PASSPHRASE_MESSAGE } from '../../src/daemon/accounts/keystore.js';
import { DEV_ADDRESSES, DEV_PRIVATE_KEYS } from '../../src/daemon/chain/genesis.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../src/shared/errors.js';

const PASSPHRASE = 'correct horse battery staple';
const OTHER_KEY = '0x' + '42'.repeat(32);
const OTHER_ADDRESS = new Wallet(OTHER_KEY).address.toLowerCase();

let root: string;
const managers: AccountManager[] = [];

function manager(dev: boolean): AccountManager {
  const accounts = new AccountManager({
    keystoreDir: join(root, 'keystore'),
    walletsDir: join(root, 'wallets'),
    derivations: new KeyDerivationSlots({ concurrency: 4, queue: 64 }),
    dev,
    lightKdf: dev,
  });
  managers.push(accounts);
  return accounts;
}

const keyBytes = (hex: string) => new Uint8Array(Buffer.from(hex.slice(2), 'hex'));

beforeAll(() => initCrypto());

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'accounts-test-'));
});

afterEach(async () => {
  jest.useRealTimers();
  for (const accounts of managers.splice(0)) accounts.close();
  await rm(root, { recursive: true, force: true });
});

describe('AccountManager outside dev mode', () => {
  it('manages nothing and unlocks nothing at start', async () => {
    const accounts = manager(false);
    expect(await accounts.list()).toEqual([]);
    expect(accounts.isUnlocked(DEV_ADDRESSES[0])).toBe(false);
    await expect(accounts.unlockedKey(DEV_ADDRESSES[0])).rejects.toThrow(NotFoundError);
  });

  it('refuses the light KDF', () => {
    expect(
      () =>
        new AccountManager({
          keystoreDir: join(root, 'keystore'),
          walletsDir: join(root, 'wallets'),
          derivations: new KeyDerivationSlots({ concurrency: 4, queue: 64 }),
          dev: false,
          lightKdf: true,
        }),
    ).toThrow(/keystore\.light-kdf .* needs --dev/);
  });
});

describe('AccountManager in dev mode', () => {
  it('lists the ten dev accounts, unlocked until exit', async () => {
    const accounts = manager(true);
    expect(await accounts.list()).toEqual(DEV_ADDRESSES.map((a) => a.toLowerCase()));
    for (const [index, address] of DEV_ADDRESSES.entries()) {
      expect(accounts.isUnlocked(address)).toBe(true);
      expect(Buffer.from(await accounts.unlockedKey(address)).toString('hex')).toBe(
        DEV_PRIVATE_KEYS[index].slice(2),
      );
    }
  });

  it('locks a dev account, which the empty passphrase unlocks again', async () => {
    const accounts = manager(true);
    await accounts.lock(DEV_ADDRESSES[1]);
    expect(accounts.isUnlocked(DEV_ADDRESSES[1])).toBe(false);
    await expect(accounts.unlockedKey(DEV_ADDRESSES[1])).rejects.toThrow(LOCKED_ACCOUNT_MESSAGE);
    await expect(accounts.unlock(DEV_ADDRESSES[1], 'guess')).rejects.toThrow(
      WRONG_PASSPHRASE_MESSAGE,
    );
    await accounts.unlock(DEV_ADDRESSES[1], '', 0);
    expect(accounts.isUnlocked(DEV_ADDRESSES[1])).toBe(true);
  });

  it('creates and imports accounts into the keystore, refusing duplicates', async () => {
    const accounts = manager(true);
    const created = await accounts.newAccount(PASSPHRASE);
    const imported = await accounts.importRawKey(keyBytes(OTHER_KEY), PASSPHRASE);
    expect(imported).toBe(OTHER_ADDRESS);
    expect((await accounts.list()).slice(10).sort()).toEqual([created, imported].sort());
    expect(accounts.isUnlocked(created)).toBe(false);
    await expect(accounts.importRawKey(keyBytes(OTHER_KEY), 'x')).rejects.toThrow(ConflictError);
    await expect(accounts.importRawKey(keyBytes(DEV_PRIVATE_KEYS[0]), 'x')).rejects.toThrow(
      'account already exists',
    );
    const files = await readdir(join(root, 'keystore'));
    expect(files).toHaveLength(2);
    const wallet = await Wallet.fromEncryptedJson(
      await readFile(
        join(
          root,
          'keystore',
          files.find((f) => f.endsWith(OTHER_ADDRESS.slice(2)))!,
        ),
        'utf8',
      ),
      PASSPHRASE,
    );
    expect(wallet.privateKey).toBe(OTHER_KEY);
  });
});

describe('unlock state machine', () => {
  let accounts: AccountManager;
  let address: string;

  beforeEach(async () => {
    accounts = manager(true);
    address = await accounts.importRawKey(keyBytes(OTHER_KEY), PASSPHRASE);
  });

  it('unlocks with the right passphrase only', async () => {
    await expect(accounts.unlock(address, 'wrong')).rejects.toThrow(ConflictError);
    expect(accounts.isUnlocked(address)).toBe(false);
    await accounts.unlock(address, PASSPHRASE);
    expect(Buffer.from(await accounts.unlockedKey(address)).toString('hex')).toBe(
      OTHER_KEY.slice(2),
    );
  });

  it('refuses unknown accounts and bad durations', async () => {
    await expect(accounts.unlock('0x' + '11'.repeat(20), PASSPHRASE)).rejects.toThrow(
      NotFoundError,
    );
    await expect(accounts.lock('0x' + '11'.repeat(20))).rejects.toThrow('unknown account');
    await expect(accounts.unlock(address, PASSPHRASE, -1)).rejects.toThrow(/unlock duration/);
    await expect(accounts.unlock(address, PASSPHRASE, 1.5)).rejects.toThrow(/unlock duration/);
    await expect(accounts.unlock(address, PASSPHRASE, MAX_UNLOCK_SECONDS + 1)).rejects.toThrow(
      /unlock duration/,
    );
  });

  it('locks after 300 s by default, not before', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    await accounts.unlock(address, PASSPHRASE);
    jest.advanceTimersByTime(299_999);
    expect(accounts.isUnlocked(address)).toBe(true);
    jest.advanceTimersByTime(1);
    expect(accounts.isUnlocked(address)).toBe(false);
    await expect(accounts.unlockedKey(address)).rejects.toThrow(ConflictError);
  });

  it('re-arms timers beyond setTimeout’s range instead of firing at once', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    const days30 = 30 * 24 * 3600;
    await accounts.unlock(address, PASSPHRASE, days30);
    jest.advanceTimersByTime(2 ** 31);
    expect(accounts.isUnlocked(address)).toBe(true);
    jest.advanceTimersByTime(days30 * 1000 - 2 ** 31);
    expect(accounts.isUnlocked(address)).toBe(false);
  });

  it('replaces the expiry of a timed unlock', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    await accounts.unlock(address, PASSPHRASE, 10);
    await accounts.unlock(address, PASSPHRASE, 100);
    jest.advanceTimersByTime(50_000);
    expect(accounts.isUnlocked(address)).toBe(true);
    jest.advanceTimersByTime(50_000);
    expect(accounts.isUnlocked(address)).toBe(false);
  });

  it('keeps an unlock until exit (0) when a timed unlock follows, as geth does', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    await accounts.unlock(address, PASSPHRASE, 0);
    await accounts.unlock(address, PASSPHRASE, 1);
    jest.advanceTimersByTime(10 * 24 * 3600 * 1000);
    expect(accounts.isUnlocked(address)).toBe(true);
  });

  it('lock zeroes the key at once', async () => {
    await accounts.unlock(address, PASSPHRASE, 0);
    const key = await accounts.unlockedKey(address);
    await accounts.lock(address);
    expect(accounts.isUnlocked(address)).toBe(false);
    expect(key.every((byte) => byte === 0)).toBe(true);
  });

  it('uses a key with its passphrase without unlocking the account', async () => {
    const used = await accounts.withPassphrase(address, PASSPHRASE, (key) =>
      Buffer.from(key).toString('hex'),
    );
    expect(used).toBe(OTHER_KEY.slice(2));
    expect(accounts.isUnlocked(address)).toBe(false);
    await expect(accounts.withPassphrase(address, 'wrong', () => 1)).rejects.toThrow(
      WRONG_PASSPHRASE_MESSAGE,
    );
  });
});

describe('local wallets', () => {
  it('initialises a wallet whose returned key is its backup and pairing password', async () => {
    const accounts = manager(true);
    const wallet = await accounts.initializeWallet('local://alice');
    expect(wallet.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(wallet.address).toBe(new Wallet(wallet.privateKey).address.toLowerCase());
    const path = join(root, 'wallets', 'alice.json');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await accounts.list()).toContain(wallet.address);

    await expect(accounts.initializeWallet('local://alice')).rejects.toThrow(ConflictError);
    await expect(accounts.initializeWallet('usb://ledger')).rejects.toThrow(/local:\/\/<name>/);
    await expect(accounts.initializeWallet('local://../x')).rejects.toThrow(InvalidInputError);

    await accounts.unlock(wallet.address, wallet.privateKey, 0);
    expect(accounts.isUnlocked(wallet.address)).toBe(true);

    await expect(accounts.unpairWallet('local://alice', 'wrong')).rejects.toThrow(
      WRONG_PASSPHRASE_MESSAGE,
    );
    await accounts.unpairWallet('local://alice', wallet.privateKey);
    expect(accounts.isUnlocked(wallet.address)).toBe(false);
    expect(await accounts.list()).not.toContain(wallet.address);
    await expect(accounts.unpairWallet('local://alice', wallet.privateKey)).rejects.toThrow(
      NotFoundError,
    );
  });
});
