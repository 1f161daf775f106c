/**
 * Content addresses of the storage layer. A chunk id is the hex SHA-256 of the chunk's bytes.
 * A file id is the hex SHA-256 of the file's size as an 8-byte big-endian integer followed by
 * the 32 raw bytes of each chunk id in order, so it names both the content and its split.
 */
import { createHash, webcrypto } from 'node:crypto';
import { CONTENT_ID_PATTERN } from '../../shared/storage-api.js';

const CONTENT_ID = new RegExp(CONTENT_ID_PATTERN);

export function isContentId(text: string): boolean {
  return CONTENT_ID.test(text);
}

export function chunkIdOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * `chunkIdOf` computed on libuv's thread pool (WebCrypto's digest runs there), so the event loop
 * goes on receiving and sending while a transfer's chunks are hashed, on another core.
 */
export async function chunkIdOfAsync(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}

export function fileIdOf(chunkIds: readonly string[], size: number): string {
  const hash = createHash('sha256');
  const sizeBytes = Buffer.alloc(8);
  sizeBytes.writeBigUInt64BE(BigInt(size));
  hash.update(sizeBytes);
  for (const id of chunkIds) hash.update(Buffer.from(id, 'hex'));
  return hash.digest('hex');
}
