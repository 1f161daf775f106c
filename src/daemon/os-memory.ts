/**
 * Memory the daemon hands back to the system after heavy work beyond what V8 gives back, through
 * the optional addon of `native/os-memory` (built at install when a compiler is at hand;
 * docs/configuration.md, "Memory"):
 * - glibc gives memory back on its own only from the top of an arena; the pages freed inside it
 *   (the backing stores of buffers V8 dropped, LMDB's write buffers, a stopped thread's memory)
 *   stay resident until `malloc_trim` hands them back;
 * - LMDB reads its files through a shared map, so every page the node ever read stays resident
 *   in the process, growing with the chain. Dropping them from the process's page tables leaves
 *   them in the kernel's page cache: the next read maps them again, without disk I/O.
 * Without the addon, or on a system that has neither (the addon then exports nothing), the node
 * runs as it did.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Logger } from './logger.js';

export interface OsMemory {
  /** glibc's `malloc_trim(0)`; true when some memory was released. Only with glibc. */
  trimMalloc?: () => boolean;
  /**
   * Drops the pages of the shared file mappings whose path ends with `suffix` from the process's
   * page tables; gives how many mappings. Only on Linux.
   */
  dropSharedFilePages?: (suffix: string) => number;
}

/** The end of the path of every LMDB data file the node maps (chain, pool journal, indexes). */
export const LMDB_DATA_FILE = '/data.mdb';

// This module sits in dist/daemon/ (and the daemon's bundle beside it), two levels below the
// package root, as in src/.
export const OS_MEMORY_ADDON = new URL(
  '../../native/os-memory/build/Release/os_memory.node',
  import.meta.url,
);

/**
 * The addon's functions, or undefined when the release is turned off
 * (`--no-os-memory-release`), the addon was not built, or the system has neither function; which
 * one is told at `debug`.
 */
export function loadOsMemory(
  enabled: boolean,
  logger?: Logger,
  addonUrl = OS_MEMORY_ADDON,
): OsMemory | undefined {
  if (!enabled) {
    logger?.debug('os-memory release turned off (--no-os-memory-release)');
    return undefined;
  }
  let addon: OsMemory;
  try {
    addon = createRequire(import.meta.url)(fileURLToPath(addonUrl)) as OsMemory;
  } catch (error) {
    logger?.debug('os-memory addon absent: freed malloc memory and mapped pages stay', {
      error: (error as Error).message,
    });
    return undefined;
  }
  const loaded = {
    trimMalloc: typeof addon.trimMalloc === 'function',
    dropSharedFilePages: typeof addon.dropSharedFilePages === 'function',
  };
  if (!loaded.trimMalloc && !loaded.dropSharedFilePages) {
    logger?.debug('os-memory addon loaded, but this system has neither of its functions');
    return undefined;
  }
  logger?.debug('os-memory addon loaded', loaded);
  return addon;
}
