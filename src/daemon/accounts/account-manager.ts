/**
 * The accounts the node manages and which of them are unlocked.
 *
 * Accounts come from three places: the key files of `<datadir>/keystore`, the local wallets of
 * `<datadir>/wallets` (see `local-wallets.ts`), and, in dev mode, the ten accounts of the test
 * mnemonic, which live only in memory and whose passphrase is the empty string (as geth's dev
 * account's is). An unlocked account's private key is held in memory until its unlock expires
 * or it is locked; the spec's states and transitions:
 *
 * - `unlock(address, passphrase, seconds)`: the passphrase must decrypt the key. `seconds` is
 *   300 when omitted; 0 keeps the account unlocked until the process exits. Unlocking an
 *   unlocked account replaces its expiry, except that an account unlocked until exit stays so
 *   (geth's rule: a timeout there would surprise whoever unlocked it indefinitely).
 * - the duration elapses: an unref'd timer locks the account, so it never keeps the process up.
 * - `lock(address)`: the key is zeroed and forgotten at once.
 *
 * Keys used with a passphrase per call (`withPassphrase`) are decrypted, used and zeroed, and
 * never change the unlock state. Dev accounts start unlocked until exit; outside dev mode
 * nothing is unlocked at start.
 */
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { DEV_ADDRESSES, DEV_PRIVATE_KEYS } from '../chain/genesis.js';
import { ConflictError, InvalidInputError, NodeError, NotFoundError } from '../../shared/errors.js';
import type { Logger } from '../logger.js';
import type { KeyDerivationSlots } from './key-derivation-slots.js';
import { KeystoreDirectory } from './keystore-dir.js';
import { decryptKey, encryptKey, wrongPassphrase } from './keystore.js';
import type { KdfStrength } from './keystore.js';
import { LocalWallets, type InitializedWallet } from './local-wallets.js';
import { generatePrivateKey } from './private-key.js';

/** Options of {@link AccountManager}. */
export interface AccountManagerOptions {
  /** `<datadir>/keystore`. */
  keystoreDir: string;
  /** `<datadir>/wallets`. */
  walletsDir: string;
  /** Dev mode: the test accounts are managed and unlocked until exit. */
  dev: boolean;
  /**
   * New key files use geth's light scrypt (milliseconds instead of a second). For tests only:
   * refused outside dev mode. Config key `keystore.light-kdf`.
   */
  lightKdf?: boolean;
  /** Where every key derivation (encrypting or decrypting a key file) waits for its turn. */
  derivations: KeyDerivationSlots;
  /** Told of new keys, unlocks, locks and refused passphrases: addresses only, never a secret. */
  logger?: Logger;
}

const NO_LOG: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/** Default unlock duration in seconds (spec, Limits). */
export const DEFAULT_UNLOCK_SECONDS = 300;
/** Longest unlock with an expiry: about 136 years, far beyond any process's life. */
export const MAX_UNLOCK_SECONDS = 2 ** 32;

/** geth's message for using a locked account. */
export const LOCKED_ACCOUNT_MESSAGE = 'authentication needed: password or unlock';

/** setTimeout fires at once for delays above this; longer unlocks re-arm their timer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface UnlockedKey {
  key: Uint8Array;
  /** Unix ms; undefined while unlocked until exit. */
  expiresAt?: number;
  timer?: NodeJS.Timeout;
}

/**
 * The node's accounts and their unlock state.
 *
 * @example
 * const derivations = new KeyDerivationSlots({ concurrency: 1, queue: 8 });
 * const accounts = new AccountManager({ keystoreDir, walletsDir, dev: false, derivations });
 * const address = await accounts.newAccount('pass');
 * await accounts.unlock(address, 'pass', 60);
 * const key = accounts.unlockedKey(address);
 */
export class AccountManager {
  private readonly keystore: KeystoreDirectory;
  private readonly wallets: LocalWallets;
  private readonly kdf: KdfStrength;
  private readonly derivations: KeyDerivationSlots;
  private readonly devKeys = new Map<string, PrefixedHexString>();
  private readonly unlocked = new Map<string, UnlockedKey>();
  private readonly logger: Logger;

  /** @throws InvalidInputError if `lightKdf` is asked for outside dev mode. */
  constructor(options: AccountManagerOptions) {
    if (options.lightKdf && !options.dev) {
      throw new InvalidInputError(
        'keystore.light-kdf weakens key files and is for tests only: it needs --dev',
      );
    }
    this.kdf = options.lightKdf ? 'light' : 'standard';
    this.logger = options.logger ?? NO_LOG;
    this.derivations = options.derivations;
    this.keystore = new KeystoreDirectory(options.keystoreDir);
    this.wallets = new LocalWallets(options.walletsDir, this.kdf, options.derivations);
    if (options.dev) {
      // The addresses come from the table rather than from the keys: the first secp256k1
      // operation of a process costs about 0.1 s, which start-up would otherwise pay here.
      DEV_PRIVATE_KEYS.forEach((hex, index) => {
        const address = DEV_ADDRESSES[index].toLowerCase();
        this.devKeys.set(address, hex);
        this.unlocked.set(address, { key: hexToBytes(hex) });
      });
    }
  }

  /** Managed accounts (`0x`, lowercase): dev accounts, then key files, then local wallets. */
  async list(): Promise<string[]> {
    const fromFiles = [...(await this.keystore.list()), ...(await this.wallets.keys.list())];
    return [...new Set([...this.devKeys.keys(), ...fromFiles.map((entry) => entry.address)])];
  }

  /** Creates an account with a new key encrypted under `passphrase`; returns its address. */
  async newAccount(passphrase: string): Promise<string> {
    return this.importRawKey(generatePrivateKey(), passphrase);
  }

  /**
   * Stores `privateKey` encrypted under `passphrase`; returns its address.
   *
   * @throws ConflictError "account already exists" if the node manages the account.
   * @throws InvalidInputError if the key is not a valid secp256k1 key.
   */
  async importRawKey(privateKey: Uint8Array, passphrase: string): Promise<string> {
    try {
      const keystore = await this.derivations.run(() =>
        encryptKey(privateKey, passphrase, { kdf: this.kdf }),
      );
      const address = `0x${keystore.address}`;
      if (await this.has(address)) {
        throw new ConflictError('account already exists', { data: { address } });
      }
      await this.keystore.store(keystore);
      this.logger.info('account key stored', { address });
      return address;
    } finally {
      privateKey.fill(0);
    }
  }

  /**
   * Unlocks `address` for `seconds` (0: until the process exits).
   *
   * @throws NotFoundError if the node does not manage the account.
   * @throws ConflictError if the passphrase is wrong.
   * @throws InvalidInputError if the duration is out of range.
   */
  async unlock(
    address: string,
    passphrase: string,
    seconds: number = DEFAULT_UNLOCK_SECONDS,
  ): Promise<void> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_UNLOCK_SECONDS) {
      throw new InvalidInputError(
        `unlock duration too large or invalid: expected whole seconds from 0 to ${MAX_UNLOCK_SECONDS}`,
      );
    }
    const account = normalise(address);
    const key = await this.decrypt(account, passphrase);
    const current = this.unlocked.get(account);
    if (current && current.expiresAt === undefined) {
      key.fill(0);
      this.logger.info('account unlock kept: it is unlocked until exit', { address: account });
      return;
    }
    this.forget(account);
    const entry: UnlockedKey = { key };
    this.unlocked.set(account, entry);
    if (seconds > 0) {
      entry.expiresAt = Date.now() + seconds * 1000;
      this.armExpiry(account, entry);
    }
    this.logger.info('account unlocked', {
      address: account,
      until: entry.expiresAt === undefined ? 'exit' : new Date(entry.expiresAt).toISOString(),
    });
  }

  /**
   * Locks `address`: its key is zeroed and dropped from memory.
   *
   * @throws NotFoundError if the node does not manage the account.
   */
  async lock(address: string): Promise<void> {
    const account = normalise(address);
    if (!(await this.has(account))) throw unknownAccount(account);
    this.forget(account);
    this.logger.info('account locked', { address: account });
  }

  /** Whether `address` is unlocked now. */
  isUnlocked(address: string): boolean {
    return this.unlocked.has(normalise(address));
  }

  /**
   * The private key of an unlocked account, for signing now. The caller must not keep it.
   *
   * @throws ConflictError (geth's "authentication needed: password or unlock") if it is locked.
   * @throws NotFoundError "unknown account" if the node does not manage it.
   */
  async unlockedKey(address: string): Promise<Uint8Array> {
    const account = normalise(address);
    const entry = this.unlocked.get(account);
    if (entry) return entry.key;
    if (!(await this.has(account))) throw unknownAccount(account);
    throw new ConflictError(LOCKED_ACCOUNT_MESSAGE, { data: { address: account } });
  }

  /**
   * Decrypts the key of `address` with `passphrase`, runs `use` with it and zeroes it; the
   * account's unlock state does not change.
   */
  async withPassphrase<T>(
    address: string,
    passphrase: string,
    use: (privateKey: Uint8Array) => T | Promise<T>,
  ): Promise<T> {
    const key = await this.decrypt(normalise(address), passphrase);
    try {
      return await use(key);
    } finally {
      key.fill(0);
    }
  }

  /** Creates the local wallet at `url` (`local://<name>`); see `local-wallets.ts`. */
  initializeWallet(url: string): Promise<InitializedWallet> {
    return this.wallets.initialize(url);
  }

  /** Deletes the local wallet at `url` after checking its pairing password, and locks it. */
  async unpairWallet(url: string, password: string): Promise<void> {
    this.forget(await this.wallets.unpair(url, password));
  }

  /** Locks every account (shutdown). */
  close(): void {
    for (const account of [...this.unlocked.keys()]) this.forget(account);
  }

  private async has(address: string): Promise<boolean> {
    return (await this.list()).includes(normalise(address));
  }

  /** Decrypts the key of `account`; a refusal is logged at warn with its reason (no secret). */
  private async decrypt(account: string, passphrase: string): Promise<Uint8Array> {
    try {
      return await this.decryptKey(account, passphrase);
    } catch (error) {
      this.logger.warn('account unlock failed', {
        address: account,
        reason: error instanceof NodeError ? error.message : 'key file unreadable',
      });
      throw error;
    }
  }

  private async decryptKey(account: string, passphrase: string): Promise<Uint8Array> {
    const devKey = this.devKeys.get(account);
    if (devKey !== undefined) {
      if (passphrase !== '') throw wrongPassphrase();
      return hexToBytes(devKey);
    }
    if (await this.keystore.find(account)) {
      const file = await this.keystore.read(account);
      return this.derivations.run(() => decryptKey(file, passphrase));
    }
    if (await this.wallets.keys.find(account)) {
      const file = await this.wallets.keys.read(account);
      return this.derivations.run(() => decryptKey(file, passphrase));
    }
    throw unknownAccount(account);
  }

  private armExpiry(account: string, entry: UnlockedKey): void {
    const remaining = (entry.expiresAt ?? 0) - Date.now();
    entry.timer = setTimeout(
      () => {
        if (this.unlocked.get(account) !== entry) return;
        if (Date.now() >= (entry.expiresAt ?? 0)) {
          this.forget(account);
          this.logger.info('account locked: its unlock expired', { address: account });
        } else this.armExpiry(account, entry);
      },
      Math.max(0, Math.min(remaining, MAX_TIMER_MS)),
    );
    entry.timer.unref();
  }

  private forget(account: string): void {
    const entry = this.unlocked.get(account);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.key.fill(0);
    this.unlocked.delete(account);
  }
}

function normalise(address: string): string {
  if (!/^(0x)?[0-9a-fA-F]{40}$/.test(address)) {
    throw new InvalidInputError(`invalid address ${JSON.stringify(address)}`);
  }
  return `0x${address.replace(/^0x/, '').toLowerCase()}`;
}

function unknownAccount(address: string): NotFoundError {
  return new NotFoundError('unknown account', { data: { address } });
}
