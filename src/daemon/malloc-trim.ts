/**
 * glibc's `malloc_trim(0)` through the optional addon of `native/malloc-trim` (built at install
 * when a compiler is at hand; docs/configuration.md, "Memory"). glibc gives memory back to the
 * system on its own only from the top of an arena; the pages freed inside it (the backing stores
 * of buffers V8 dropped, LMDB's write buffers) stay resident until `malloc_trim` hands them back.
 * Without the addon, or without glibc (the addon then exports nothing), the node runs as it did.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Logger } from './logger.js';

/** Hands glibc's free pages back to the system; true when some were released. */
export type TrimMalloc = () => boolean;

// This module sits in dist/daemon/ (and the daemon's bundle beside it), two levels below the
// package root, as in src/.
export const MALLOC_TRIM_ADDON = new URL(
  '../../native/malloc-trim/build/Release/malloc_trim.node',
  import.meta.url,
);

/**
 * The addon's `trim`, or undefined when it is turned off (`--no-malloc-trim`), was not built, or
 * the C library is not glibc; which one is told at `debug`.
 */
export function loadMallocTrim(
  enabled: boolean,
  logger?: Logger,
  addonUrl = MALLOC_TRIM_ADDON,
): TrimMalloc | undefined {
  if (!enabled) {
    logger?.debug('malloc_trim turned off (--no-malloc-trim)');
    return undefined;
  }
  let addon: { trim?: TrimMalloc };
  try {
    addon = createRequire(import.meta.url)(fileURLToPath(addonUrl)) as { trim?: TrimMalloc };
  } catch (error) {
    logger?.debug('malloc_trim addon absent: freed malloc memory stays with the process', {
      error: (error as Error).message,
    });
    return undefined;
  }
  if (typeof addon.trim !== 'function') {
    logger?.debug('malloc_trim addon loaded, but the C library is not glibc: not used');
    return undefined;
  }
  logger?.debug('malloc_trim addon loaded');
  return addon.trim;
}
