/**
 * Profiles of a running daemon through its debug methods (private: the connection must carry
 * the token). The daemon writes each file into `<datadir>/profiles` and answers its path.
 */
import { copyFile, rename, rm, stat } from 'node:fs/promises';
import type { HttpRpcClient } from './http-rpc-client.js';

export type ProfileKind = 'cpu' | 'heap';

/** What DevTools expects a file of each kind to be called. */
const PROFILE_EXTENSIONS: Record<ProfileKind, string> = {
  cpu: '.cpuprofile',
  heap: '.heapsnapshot',
};

/**
 * How long a heap snapshot may take at least: V8 walks the whole heap with the daemon paused,
 * minutes for a big one.
 */
const HEAP_SNAPSHOT_TIMEOUT_MS = 300_000;

/**
 * Asks the daemon for a profile written to `file` (a name inside its profiles directory) and
 * resolves to the absolute path it wrote: a CPU profile sampled for `seconds`, or a heap
 * snapshot.
 */
export function takeProfile(
  rpc: HttpRpcClient,
  kind: ProfileKind,
  file: string,
  seconds: number,
): Promise<string> {
  // The daemon answers only when the profile is written, so the silence is part of the call.
  const unlimited = rpc.timeoutMs === 0;
  return kind === 'cpu'
    ? rpc.call<string>('debug_cpuProfile', [file, seconds], {
        timeoutMs: unlimited ? 0 : rpc.timeoutMs + seconds * 1000,
      })
    : rpc.call<string>('debug_writeMemProfile', [file], {
        timeoutMs: unlimited ? 0 : Math.max(rpc.timeoutMs, HEAP_SNAPSHOT_TIMEOUT_MS),
      });
}

/** A file name for a new profile: kind and time, with DevTools' extension. */
export function profileFileName(kind: ProfileKind, at = new Date()): string {
  return `${kind}-${at.toISOString().replace(/[:.]/g, '-')}${PROFILE_EXTENSIONS[kind]}`;
}

/** Moves `from` to `to`, across file systems too; resolves to the size in bytes. */
export async function moveFile(from: string, to: string): Promise<number> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
    await rm(from);
  }
  return (await stat(to)).size;
}
