/**
 * The key files of a keystore directory (`<datadir>/keystore`, see `dataDirLayout`), laid out as
 * geth lays out its own: one v3 file per account named `UTC--<time>--<address>`, mode 0600, in a
 * directory of mode 0700. As in geth, an account is identified by the `address` inside the file,
 * not by the file name, and files that are not key files are skipped silently. The directory is
 * read afresh on every call, so files copied in by hand appear without a restart.
 */
import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/atomic-write.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../shared/errors.js';
import { parseKeystore } from './keystore-format.js';
import type { KeystoreV3, ParsedKeystore } from './keystore-format.js';

/** One account found in the directory. */
export interface KeystoreEntry {
  /** `0x` and 40 lowercase hex digits. */
  address: string;
  /** Path of the key file: the directory given to the constructor joined with its name. */
  path: string;
}

interface ScannedKeyFile extends KeystoreEntry {
  keystore: ParsedKeystore;
}

/** A v3 key file is about 500 bytes; larger files are not read, whatever their name. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/** geth's message for an address with no key file. */
const NO_MATCH_MESSAGE = 'no key for given address or file';

/** Reads and writes the key files of one keystore directory. */
export class KeystoreDirectory {
  /** @param dir the keystore directory; created on the first `store`. */
  constructor(readonly dir: string) {}

  /** Every account with a readable key file, sorted by file name (oldest first). */
  async list(): Promise<KeystoreEntry[]> {
    return (await this.scan()).map(({ address, path }) => ({ address, path }));
  }

  /**
   * The entry of `address` (any case, with or without `0x`), or `undefined`.
   *
   * @throws InvalidInputError if `address` is not 20 bytes of hex.
   */
  async find(address: string): Promise<KeystoreEntry | undefined> {
    const wanted = `0x${normaliseAddress(address)}`;
    return (await this.list()).find((entry) => entry.address === wanted);
  }

  /**
   * The validated key file of `address`. A file that geth's naming ties to the address but that
   * does not parse is reported, not skipped, so a damaged key file is noticed.
   *
   * @throws NotFoundError if no file holds the address.
   * @throws InvalidInputError naming the file and the bad field if the file is damaged.
   */
  async read(address: string): Promise<ParsedKeystore> {
    const bare = normaliseAddress(address);
    const entry = (await this.scan()).find((found) => found.address === `0x${bare}`);
    if (entry) return entry.keystore;
    const damaged = (await this.candidateFiles()).find((path) =>
      path.toLowerCase().endsWith(`--${bare}`),
    );
    if (damaged === undefined) throw new NotFoundError(NO_MATCH_MESSAGE, { data: { address } });
    try {
      return parseKeystore(await readFile(damaged, 'utf8'));
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new InvalidInputError(`damaged key file ${damaged}: ${reason}`, {
        cause,
        data: { path: damaged },
      });
    }
  }

  /**
   * Writes `keystore` as a new file named like geth's and returns its path. The file appears
   * whole or not at all (temporary file, fsync, rename) and is readable by the owner only.
   *
   * @throws ConflictError if the directory already holds a key for the address.
   * @throws InvalidInputError if `keystore` is not a valid v3 file with an address.
   */
  async store(keystore: KeystoreV3): Promise<string> {
    const { address } = parseKeystore(keystore);
    if (address === undefined) {
      throw new InvalidInputError('invalid keystore field address: missing', {
        data: { field: 'address' },
      });
    }
    if (await this.find(address)) {
      throw new ConflictError('account already exists', { data: { address: `0x${address}` } });
    }
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, keyFileName(address, new Date()));
    writeFileAtomic(path, JSON.stringify(keystore), 0o600);
    return path;
  }

  /** The key files that parse, with their content. */
  private async scan(): Promise<ScannedKeyFile[]> {
    const scanned: ScannedKeyFile[] = [];
    for (const path of await this.candidateFiles()) {
      const keystore = await readKeystoreOrUndefined(path);
      if (keystore?.address !== undefined) {
        scanned.push({ address: `0x${keystore.address}`, path, keystore });
      }
    }
    return scanned;
  }

  /** Regular files that could be key files, sorted; none if the directory does not exist. */
  private async candidateFiles(): Promise<string[]> {
    let dirents;
    try {
      dirents = await readdir(this.dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return dirents
      .filter((dirent) => dirent.isFile() && !isIgnoredName(dirent.name))
      .map((dirent) => dirent.name)
      .sort()
      .map((name) => join(this.dir, name));
  }
}

/**
 * geth's key file name: `UTC--2024-05-01T12-30-45.123Z--<address>` (ISO 8601 in UTC with `-`
 * for `:`, which some file systems forbid).
 */
export function keyFileName(address: string, time: Date): string {
  return `UTC--${time.toISOString().replaceAll(':', '-')}--${address}`;
}

/** Hidden files, editor backups, geth's README and interrupted atomic writes. */
function isIgnoredName(name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || name.endsWith('.tmp') || name === 'README';
}

async function readKeystoreOrUndefined(path: string): Promise<ParsedKeystore | undefined> {
  try {
    if ((await stat(path)).size > MAX_KEY_FILE_BYTES) return undefined;
    return parseKeystore(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function normaliseAddress(address: string): string {
  const bare = address.startsWith('0x') || address.startsWith('0X') ? address.slice(2) : address;
  if (!/^[0-9a-fA-F]{40}$/.test(bare)) {
    throw new InvalidInputError(`invalid address ${JSON.stringify(address)}`);
  }
  return bare.toLowerCase();
}
