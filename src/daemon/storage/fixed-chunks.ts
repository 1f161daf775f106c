/**
 * Splits a byte stream into chunks of exactly `chunkSize` bytes (the last one shorter), holding
 * one chunk at a time, and refuses a stream longer than `maxBytes` as soon as it passes it.
 * Each chunk is filled into a buffer of `chunkSize` bytes from `nextBuffer`: a consumer that
 * hands back the buffers it is done with reuses them instead of allocating one per chunk.
 */
export async function* fixedChunks(
  source: AsyncIterable<Uint8Array>,
  chunkSize: number,
  maxBytes: number,
  tooLarge: () => Error,
  nextBuffer: () => Buffer = () => Buffer.allocUnsafe(chunkSize),
): AsyncGenerator<Buffer> {
  let chunk = nextBuffer();
  let filled = 0;
  let total = 0;
  for await (const piece of source) {
    total += piece.length;
    if (total > maxBytes) throw tooLarge();
    let offset = 0;
    while (offset < piece.length) {
      const take = Math.min(chunkSize - filled, piece.length - offset);
      chunk.set(piece.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === chunkSize) {
        yield chunk;
        // Another buffer: the consumer may still be writing the one it was given.
        chunk = nextBuffer();
        filled = 0;
      }
    }
  }
  if (filled > 0) yield chunk.subarray(0, filled);
}
