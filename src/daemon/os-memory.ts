/**
 * Memory the daemon hands back to the system after heavy work beyond what V8 gives back, through
 * the optional addon of `native/os-memory` (built at install when a compiler is at hand;
 * docs/configuration.md, "Memory"):
 * - glibc gives memory back on its own only from the top of an arena; the pages freed inside it
 *   (the backing stores of buffers V8 dropped, LMDB's write buffers, a stopped thread's memory)
 *   stay resident until `malloc_trim` hands them back.
 * Without the addon, or on a system without glibc (the addon then exports nothing), the node
 * runs as it did. The pages of LMDB's files that the node has read stay mapped, and count in its
 * resident memory; they are the kernel's page cache, which holds them whether or not the node
 * maps them, so dropping them from the process (tried: `madvise`) would change the figure, not
 * the memory the machine holds.
 */
import type { Logger } from './logger.js';
import { addonUrl, requireAddon } from './native-addons.js';

export interface OsMemory {
  /** glibc's `malloc_trim(0)`; true when some memory was released. Only with glibc. */
  trimMalloc?: () => boolean;
}

export const OS_MEMORY_ADDON = addonUrl('os-memory');

/**
 * The addon's functions, or undefined when the release is turned off
 * (`--no-os-memory-release`), the addon was not built, or the system has neither function; which
 * one is told at `debug`.
 */
export function loadOsMemory(
  enabled: boolean,
  logger?: Logger,
  url = OS_MEMORY_ADDON,
): OsMemory | undefined {
  if (!enabled) {
    logger?.debug('os-memory release turned off (--no-os-memory-release)');
    return undefined;
  }
  let addon: OsMemory;
  try {
    addon = requireAddon(url) as OsMemory;
  } catch (error) {
    logger?.debug('os-memory addon absent: freed malloc memory stays', {
      error: (error as Error).message,
    });
    return undefined;
  }
  if (typeof addon.trimMalloc !== 'function') {
    logger?.debug('os-memory addon loaded, but this system has no malloc_trim');
    return undefined;
  }
  logger?.debug('os-memory addon loaded');
  return addon;
}
