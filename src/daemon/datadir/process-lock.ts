/**
 * The daemon's hold on its data directory: the OS-level lock of `src/shared/datadir-lock.ts`,
 * taken before anything in the directory is opened and kept until the process ends.
 */
import { DataDirLock, readLockHolder } from '../../shared/datadir-lock.js';
import { currentProcessIdentity } from '../../shared/process-identity.js';
import { ConflictError } from '../../shared/errors.js';

export class ProcessLock {
  private constructor(private readonly lock: DataDirLock) {}

  /** Takes the lock or throws `ConflictError` naming the process that holds it. */
  static acquire(lockFile: string): ProcessLock {
    const lock = DataDirLock.tryAcquire(lockFile, currentProcessIdentity());
    if (lock) return new ProcessLock(lock);
    const holder = readLockHolder(lockFile);
    throw new ConflictError(
      `data directory is in use by another daemon${holder ? ` (pid ${holder.pid})` : ''}; lock file ${lockFile}`,
    );
  }

  release(): void {
    this.lock.release();
  }
}
