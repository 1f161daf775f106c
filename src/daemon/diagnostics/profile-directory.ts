/**
 * The one directory the debug methods write to (`<datadir>/profiles`). Callers name a file
 * relative to it, or by an absolute path inside it; a name that resolves anywhere else, by `..`
 * or through a symbolic link, is refused. Keeping the files out of the rest of the data directory
 * means a token holder cannot overwrite the chain store, the keystore or the auth token with a
 * profile. Files are written under a temporary name and renamed, so a reader never sees half of
 * one, and with mode 0600: heap snapshots hold every secret the process holds.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, realpath, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { InvalidInputError, ServerError } from '../../shared/errors.js';

const FILE_MODE = 0o600;

/** A file being written under a temporary name. */
export interface PendingFile {
  temporary: string;
  /** Creates the temporary file (mode 0600). */
  open(): Promise<FileHandle>;
  /** Renames the temporary file over the target. */
  commit(): Promise<void>;
  /** Removes the temporary file and returns the error to throw for `error`. */
  discard(error: unknown): Promise<ServerError>;
}
const DIRECTORY_MODE = 0o700;
const TEMPORARY_ID_BYTES = 6;
const TEMPORARY_SUFFIX = /\.[0-9a-f]{12}\.tmp$/;
/** The longest file name Linux file systems take, less the temporary suffix `pending` adds. */
const MAX_NAME_BYTES = 255 - '.0123456789ab.tmp'.length;

function inside(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest !== '' && !rest.startsWith('..') && !isAbsolute(rest);
}

export class ProfileDirectory {
  private prepared: Promise<void> | undefined;

  constructor(readonly root: string) {}

  /**
   * The absolute path `file` names inside the directory (created on first use).
   *
   * @throws InvalidInputError when the name is empty, resolves outside the directory, or its
   *   folder does not exist.
   */
  async resolve(file: string): Promise<string> {
    if (file.trim() === '' || file.includes('\0')) {
      throw new InvalidInputError('invalid file name: give a file name such as cpu.cpuprofile');
    }
    const target = isAbsolute(file) ? resolve(file) : resolve(this.root, file);
    if (Buffer.byteLength(basename(target)) > MAX_NAME_BYTES) {
      throw new InvalidInputError(
        `invalid file name: "${basename(target).slice(0, 32)}…" is longer than ${MAX_NAME_BYTES} bytes`,
      );
    }
    if (!inside(this.root, target)) throw this.outside(file);
    this.prepared ??= this.prepare().catch((error: unknown) => {
      this.prepared = undefined;
      throw new ServerError(`could not prepare ${this.root}: ${(error as Error).message}`, {
        cause: error,
      });
    });
    await this.prepared;
    let folder: string;
    try {
      folder = await realpath(dirname(target));
    } catch {
      throw new InvalidInputError(
        `invalid file name "${file}": folder ${dirname(target)} does not exist`,
      );
    }
    const root = await realpath(this.root);
    if (folder !== root && !inside(root, folder)) throw this.outside(file);
    return resolve(folder, basename(target));
  }

  /**
   * A temporary sibling of `path` (from `resolve`) to fill; `commit` renames it over `path`,
   * `discard` removes it. A failed write becomes a `ServerError` naming the file.
   */
  pending(path: string): PendingFile {
    const temporary = `${path}.${randomBytes(TEMPORARY_ID_BYTES).toString('hex')}.tmp`;
    return {
      temporary,
      open: () => open(temporary, 'wx', FILE_MODE),
      commit: () => rename(temporary, path),
      discard: async (error: unknown) => {
        await rm(temporary, { force: true }).catch(() => undefined);
        return new ServerError(`could not write ${path}: ${(error as Error).message}`, {
          cause: error,
        });
      },
    };
  }

  /** Writes `path` (from `resolve`) through `write`, which fills the temporary file it is given. */
  async writeThrough(
    path: string,
    write: (temporary: PendingFile) => Promise<void>,
  ): Promise<void> {
    const file = this.pending(path);
    try {
      await write(file);
      await file.commit();
    } catch (error) {
      throw await file.discard(error);
    }
  }

  /** Writes `content` to `path` (from `resolve`). */
  writeFile(path: string, content: string): Promise<void> {
    return this.writeThrough(path, async (file) => {
      const handle = await file.open();
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
    });
  }

  /**
   * Creates the directory, and removes the temporary files of recordings a previous run of the
   * daemon did not finish (it stopped while they ran): nothing is being written yet.
   */
  private async prepare(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: DIRECTORY_MODE });
    const stale = (await readdir(this.root)).filter((name) => TEMPORARY_SUFFIX.test(name));
    await Promise.all(stale.map((name) => rm(join(this.root, name), { force: true })));
  }

  private outside(file: string): InvalidInputError {
    return new InvalidInputError(
      `invalid file name "${file}": debug methods write only inside ${this.root}`,
    );
  }
}
