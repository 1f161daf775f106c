/**
 * A volume's chunk work done natively (the optional addon of `native/chunk-io`), each piece one
 * job on libuv's thread pool that reads the chunk's buffer in place:
 * - hashing: WebCrypto's digest first copies its input on the event loop;
 * - writing a replica: node:fs takes five trips to the pool (open, write, fsync, close, rename);
 * - reading a replica and hashing it: four trips to the pool (open, fstat, read, close) and a hash,
 *   with the bytes the page cache lacks read past it;
 * - marking `chunks/` so that its shard directories spread over the file system (volume.ts).
 * Without the addon the storage layer does the same through WebCrypto and node:fs, with the same
 * results and errors (docs/storage.md, "Transfers").
 */
import type { Logger } from '../logger.js';
import { addonUrl, requireAddon } from '../native-addons.js';

export interface ChunkIo {
  /** The hex SHA-256 of `bytes`, which must stay unchanged until it resolves. */
  sha256Hex(bytes: Uint8Array): Promise<string>;
  /**
   * Creates `temp` (with O_DIRECT when `direct`), writes `bytes`, fsyncs, closes and renames it
   * to `final`. Rejects with an Error carrying the errno's name as `code` (ENOENT, EINVAL,
   * ENOSPC, …) and the failed step as `syscall`, having removed `temp`.
   */
  writeReplica(temp: string, final: string, bytes: Uint8Array, direct: boolean): Promise<void>;
  /**
   * Reads at most `maxBytes` (default `into.length`) of the file at `path` into `into` from
   * `offset` on (none when it is not a regular file; a FIFO does not block) and hashes what it
   * read. Bytes not in the page cache are read past it (O_DIRECT) when `into` has
   * `directReadRoom(maxBytes)` bytes. Undefined when there is no such file (ENOENT, ENOTDIR);
   * other failures reject as `writeReplica`'s do.
   */
  readReplica(path: string, into: Uint8Array, maxBytes?: number): Promise<NativeRead | undefined>;
  /**
   * Marks a directory as the top of a hierarchy (`chattr +T`): ext2/3/4 then spread the
   * directories made in it over the block groups. False where the file system has no such mark.
   */
  markTopDirectory(path: string): boolean;
}

export interface NativeRead {
  bytesRead: number;
  /** Where in `into` the bytes start: a block boundary when they were read past the cache. */
  offset: number;
  /** The hex SHA-256 of the `bytesRead` bytes read. */
  sha256Hex: string;
}

const FUNCTIONS = ['sha256Hex', 'writeReplica', 'readReplica', 'markTopDirectory'] as const;

export const CHUNK_IO_ADDON = addonUrl('chunk-io');

/** The addon's functions, or undefined when it was not built; which one is told at `debug`. */
export function loadChunkIo(logger?: Logger, url = CHUNK_IO_ADDON): ChunkIo | undefined {
  try {
    const addon = requireAddon(url);
    if (FUNCTIONS.every((name) => typeof addon[name] === 'function')) {
      logger?.debug('chunk-io addon loaded');
      return addon as unknown as ChunkIo;
    }
    logger?.debug('chunk-io addon lacks its functions: chunks go through WebCrypto and node:fs');
  } catch (error) {
    logger?.debug('chunk-io addon absent: chunks go through WebCrypto and node:fs', {
      error: (error as Error).message,
    });
  }
  return undefined;
}
