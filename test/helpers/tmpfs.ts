/**
 * Small tmpfs mounts for tests of full and read-only storage volumes. Mounting needs root in a
 * container that allows it; where it does not, `canMountTmpfs` is false and those tests skip.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../src/client/rest-client.js';
import { startTestDaemon, type TestDaemon } from './test-daemon.js';

/** A tmpfs of `size` (`64k`, `2m`) on a fresh directory, or undefined where tests may not mount. */
export function mountTmpfs(size: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'node-cli-volume-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

/** Remounts a tmpfs of `mountTmpfs` read-only (`ro`) or writable again (`rw`). */
export function remountTmpfs(dir: string, mode: 'ro' | 'rw'): void {
  execFileSync('mount', ['-o', `remount,${mode}`, dir]);
}

export function unmountTmpfs(dir: string): void {
  execFileSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
}

/** Whether tests may mount here: probed with a mount undone at once. */
export const canMountTmpfs = (() => {
  const probe = mountTmpfs('64k');
  if (probe) unmountTmpfs(probe);
  return probe !== undefined;
})();

/** A test daemon whose one storage volume lies on a tmpfs of its own. */
export interface TmpfsDaemon {
  daemon: TestDaemon;
  client: RestClient;
  /** The tmpfs mount point. */
  mount: string;
  /** The volume directory, inside the mount. */
  volume: string;
  /** Stops the daemon and unmounts the tmpfs. */
  close(): Promise<void>;
}

export async function startDaemonOnTmpfs(
  size: string,
  extraFlags: readonly string[] = [],
): Promise<TmpfsDaemon> {
  const mount = mountTmpfs(size) as string;
  const volume = join(mount, 'volume');
  const daemon = await startTestDaemon(['--storage.volume', volume, ...extraFlags]);
  const client = new RestClient(daemon.endpoints.rest as string, { token: daemon.token });
  return {
    daemon,
    client,
    mount,
    volume,
    close: async () => {
      await client.close();
      await daemon.stop();
      unmountTmpfs(mount);
    },
  };
}
