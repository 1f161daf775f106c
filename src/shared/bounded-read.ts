/**
 * Text files read whole, with a bound. `readFileSync` reads a file that never ends (a
 * character device such as /dev/zero, named where a small file was meant) until memory runs
 * out; this stops past `maxBytes` with an error that says so.
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** The bound of a file holding one secret: a password or a token. */
export const SECRET_FILE_MAX_BYTES = 64 * 1024;
/** The bound of a key file (a JSON keystore, or a raw private key). */
export const KEY_FILE_MAX_BYTES = 1024 * 1024;

/**
 * The UTF-8 text of `path`, at most `maxBytes` long.
 *
 * @throws Error `longer than <limit>` past it, or the file system's error.
 */
export function readBoundedTextSync(path: string, maxBytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, maxBytes + 1 - size));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      size += read;
      if (size > maxBytes) throw new Error(`longer than ${describeBytes(maxBytes)}`);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
