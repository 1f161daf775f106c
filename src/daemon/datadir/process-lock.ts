/**
 * An exclusive lock on a data directory, held for the life of the daemon process.
 *
 * The lock file is created with O_EXCL and holds the owner's pid. A lock whose owner is no
 * longer alive (a daemon killed with SIGKILL) is stale and taken over; a live owner means the
 * directory is in use and the start is refused.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { ConflictError } from '../errors.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export class ProcessLock {
  private constructor(private readonly lockFile: string) {}

  /** Takes the lock or throws `ConflictError` naming the process that holds it. */
  static acquire(lockFile: string): ProcessLock {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o644 });
        return new ProcessLock(lockFile);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readOwner(lockFile);
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        throw new ConflictError(
          `data directory is in use by another daemon (pid ${owner}); lock file ${lockFile}`,
        );
      }
      unlinkSync(lockFile);
    }
    throw new ConflictError(`could not take the lock file ${lockFile}`);
  }

  release(): void {
    if (readOwner(this.lockFile) === process.pid) unlinkSync(this.lockFile);
  }
}
