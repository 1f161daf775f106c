/**
 * A file download as the byte stream a response sends, with a limit on how long its client may
 * leave the bytes untaken. A client that stops reading (a stalled or suspended process, a
 * connection nobody drains) otherwise holds the download for as long as its connection lives:
 * its read-ahead chunks in memory, and the chunks of a file removed meanwhile on disk, since the
 * last download of such a file is what removes them (docs/storage.md).
 *
 * Chunks go out in pieces of at most `pieceBytes` (views of the chunk, not copies), so the
 * stream is asked for more after each piece the client has taken rather than after a whole
 * chunk: the clock measures the client's progress in pieces, and a slow client that keeps
 * taking bytes is not cut off.
 */
import { Readable } from 'node:stream';

export interface DownloadLimits {
  /** Longest a piece may wait to be taken, in ms. */
  idleMs: number;
  /** Largest piece handed to the response at once. */
  pieceBytes: number;
  /** The error the stream ends with when the client stalls; it closes the connection. */
  stalled(): Error;
}

/** A byte stream of `source`'s chunks, ended with `stalled()` when a piece waits too long. */
export function downloadStream(
  source: Iterable<Buffer> | AsyncIterable<Buffer>,
  limits: DownloadLimits,
): Readable {
  const { idleMs, pieceBytes } = limits;
  async function* pieces(): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      for (let start = 0; start < chunk.length; start += pieceBytes) {
        const timer = setTimeout(() => stream.destroy(limits.stalled()), idleMs);
        try {
          yield chunk.subarray(start, start + pieceBytes);
        } finally {
          clearTimeout(timer);
        }
      }
    }
  }
  // A byte stream, so it buffers about one piece past the storage layer's read-ahead rather
  // than sixteen (an object stream's default).
  const stream = Readable.from(pieces(), { objectMode: false });
  return stream;
}
