/**
 * Local wallets: the node's counterpart of the hardware wallets geth pairs with through
 * personal_initializeWallet and personal_unpair. A wallet is named by a URL `local://<name>`
 * and lives in one v3 key file, `<datadir>/wallets/<name>.json` (mode 0600, directory 0700).
 *
 * Initialising a wallet generates a fresh key and hands it to the caller once, as a hardware
 * wallet shows its backup. The same secret is the pairing password: the key file is encrypted
 * with it, so the wallet's account is unlocked (personal_unlockAccount, personal_sign,
 * personal_sendTransaction) with the returned key as passphrase, and unpairing, which deletes
 * the file, needs it too. Holding the backup is exactly the authority the wallet gives.
 */
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/atomic-write.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../shared/errors.js';
import type { KeyDerivationSlots } from './key-derivation-slots.js';
import { KeystoreDirectory } from './keystore-dir.js';
import { decryptKey, encryptKey } from './keystore.js';
import type { KdfStrength } from './keystore.js';
import { addressOfPrivateKey, generatePrivateKey } from './private-key.js';

/** The scheme of local wallet URLs. */
export const LOCAL_WALLET_SCHEME = 'local://';

const WALLET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A wallet just created, with the secret its owner must keep. */
export interface InitializedWallet {
  url: string;
  /** `0x` and 40 lowercase hex digits. */
  address: string;
  /** `0x` and 64 hex digits: the wallet's private key and its pairing password. */
  privateKey: string;
}

/** The wallets of one directory. */
export class LocalWallets {
  /** Reads the wallets' key files by the address inside them. */
  readonly keys: KeystoreDirectory;

  /**
   * @param dir the wallets directory, created on the first wallet.
   * @param kdf key-derivation strength of new wallet files.
   * @param derivations where each key derivation waits for its turn.
   */
  constructor(
    readonly dir: string,
    private readonly kdf: KdfStrength,
    private readonly derivations: KeyDerivationSlots,
  ) {
    this.keys = new KeystoreDirectory(dir);
  }

  /**
   * Creates the wallet at `url` with a new key and returns the key.
   *
   * @throws InvalidInputError if `url` is not `local://<name>`.
   * @throws ConflictError if the wallet exists.
   */
  async initialize(url: string): Promise<InitializedWallet> {
    const path = this.pathOf(url);
    if (await exists(path)) throw new ConflictError(`wallet ${url} already exists`);
    const privateKey = generatePrivateKey();
    const secret = `0x${Buffer.from(privateKey).toString('hex')}`;
    try {
      const keystore = await this.derivations.run(() =>
        encryptKey(privateKey, secret, { kdf: this.kdf }),
      );
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      writeFileAtomic(path, JSON.stringify(keystore), 0o600);
      return { url, address: `0x${keystore.address}`, privateKey: secret };
    } finally {
      privateKey.fill(0);
    }
  }

  /**
   * Deletes the wallet at `url` after checking its pairing password; returns its address.
   *
   * @throws NotFoundError if there is no such wallet.
   * @throws ConflictError if the password is wrong (geth's wording).
   * @throws InvalidInputError if the URL is malformed.
   */
  async unpair(url: string, password: string): Promise<string> {
    const path = this.pathOf(url);
    if (!(await exists(path))) throw new NotFoundError(`unknown wallet ${url}`);
    const file = await readFile(path, 'utf8');
    const privateKey = await this.derivations.run(() => decryptKey(file, password));
    const address = `0x${addressOfPrivateKey(privateKey)}`;
    privateKey.fill(0);
    await rm(path, { force: true });
    return address;
  }

  private pathOf(url: string): string {
    const name = url.startsWith(LOCAL_WALLET_SCHEME) ? url.slice(LOCAL_WALLET_SCHEME.length) : '';
    if (!WALLET_NAME.test(name)) {
      throw new InvalidInputError(
        `invalid wallet URL ${JSON.stringify(url)}: expected ${LOCAL_WALLET_SCHEME}<name>, the name of letters, digits, ".", "_" and "-"`,
      );
    }
    return join(this.dir, `${name}.json`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
