/**
 * The data directory's lock: an OS-level, open-file-description lock (`fcntl(F_OFD_SETLK)` on
 * Linux, `flock` elsewhere) on `daemon.lock`, taken by the daemon and held for its whole life.
 * The kernel drops it when the process dies, however it dies, so a lock that can be taken
 * proves no daemon is running, and no two processes can hold it at once whatever the race.
 *
 * The file stays in place (removing a file others may be locking would let two processes lock
 * two different files); its contents name the holder for people and for `daemon stop`.
 */
import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ProcessIdentity } from './process-identity.js';

interface LockBinding {
  tryLock(fd: number, options?: { shared?: boolean }): boolean;
  unlock(fd: number): void;
}

/** The functions of fs-native-extensions' binary that its `index.js` wraps as `LockBinding`. */
interface NativeLocks {
  tryLock(fd: number, offset: number, length: number, exclusive: boolean): void;
  unlock(fd: number, offset: number, length: number): void;
}

let binding: LockBinding | undefined;

/** Loaded on first use: the native module is needed only by commands that look at the lock. */
function lockBinding(): LockBinding {
  binding ??=
    prebuiltLocks() ?? (createRequire(import.meta.url)('fs-native-extensions') as LockBinding);
  return binding;
}

/**
 * fs-native-extensions' prebuilt binary for this platform, loaded directly and wrapped as its
 * `index.js` does (a lock held elsewhere is `EAGAIN`, anything else is thrown). The package's own
 * loader resolves the binary through a general addon resolver that takes about 13 ms to load,
 * paid by every `daemon start` twice (the CLI looks at the lock, then the daemon takes it); the
 * binary itself loads in under 3. Where there is no such binary, or it does not load (a musl
 * system), the package is loaded as usual.
 */
function prebuiltLocks(): LockBinding | undefined {
  let native: NativeLocks;
  try {
    native = createRequire(import.meta.url)(
      `fs-native-extensions/prebuilds/${process.platform}-${process.arch}/fs-native-extensions.node`,
    ) as NativeLocks;
  } catch {
    return undefined;
  }
  return {
    tryLock(fd, options) {
      try {
        native.tryLock(fd, 0, 0, options?.shared !== true);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return false;
        throw error;
      }
    },
    unlock: (fd) => native.unlock(fd, 0, 0),
  };
}

/** How long a taker retries: a `daemon status` probe holds a shared lock for microseconds. */
const PROBE_RETRY_MS = 250;

export class DataDirLock {
  private constructor(private fd: number | undefined) {}

  /**
   * Takes the lock and records `holder` in the file, or returns undefined when another process
   * holds it.
   */
  static tryAcquire(lockFile: string, holder: ProcessIdentity): DataDirLock | undefined {
    const fd = openSync(lockFile, constants.O_RDWR | constants.O_CREAT, 0o644);
    const deadline = Date.now() + PROBE_RETRY_MS;
    while (!lockBinding().tryLock(fd)) {
      if (Date.now() >= deadline) {
        closeSync(fd);
        return undefined;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
    ftruncateSync(fd, 0);
    writeSync(fd, `${JSON.stringify(holder)}\n`, 0);
    return new DataDirLock(fd);
  }

  release(): void {
    if (this.fd === undefined) return;
    lockBinding().unlock(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * True when some process holds the lock now. Probes with a shared lock, which a holder's
 * exclusive lock refuses and which never blocks a daemon for longer than the probe itself.
 */
export function isDataDirLocked(lockFile: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockFile, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
  try {
    const free = lockBinding().tryLock(fd, { shared: true });
    if (free) lockBinding().unlock(fd);
    return !free;
  } finally {
    closeSync(fd);
  }
}

/** The holder recorded in the lock file; meaningful only while `isDataDirLocked` is true. */
export function readLockHolder(lockFile: string): ProcessIdentity | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockFile, 'utf8')) as Partial<ProcessIdentity>;
    if (typeof parsed.pid !== 'number') return undefined;
    return {
      pid: parsed.pid,
      startTime: typeof parsed.startTime === 'string' ? parsed.startTime : undefined,
    };
  } catch {
    return undefined;
  }
}
