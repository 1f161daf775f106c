/**
 * Collects a request body that arrives in pieces into one buffer that grows by doubling, never
 * past the body limit. Keeping the pieces instead (an array of Buffers, or of strings) costs an
 * object per piece: a 5 MB body sent as one-byte chunks held half a gigabyte that way.
 */

const INITIAL_CAPACITY = 16 * 1024;
const SMALL_COPY = 16;

export class BodyBuffer {
  private bytes: Buffer | undefined;
  private used = 0;

  /** `maxSize` bounds the capacity; the caller refuses bodies over it before appending. */
  constructor(private readonly maxSize: number) {}

  get size(): number {
    return this.used;
  }

  /** Appends `source[start, end)`. */
  append(source: Buffer, start = 0, end = source.length): void {
    const length = end - start;
    if (length === 0) return;
    const needed = this.used + length;
    if (this.bytes === undefined || needed > this.bytes.length) {
      let capacity = Math.max(this.bytes?.length ?? 0, INITIAL_CAPACITY);
      while (capacity < needed) capacity *= 2;
      const grown = Buffer.allocUnsafe(Math.min(capacity, Math.max(this.maxSize, needed)));
      if (this.bytes !== undefined) this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    // Copying a few bytes in JavaScript is cheaper than the call into native code.
    if (length <= SMALL_COPY)
      for (let i = 0; i < length; i++) this.bytes[this.used + i] = source[start + i];
    else source.copy(this.bytes, this.used, start, end);
    this.used = needed;
  }

  /** The bytes collected; the buffer starts afresh for the next body. */
  take(): Buffer {
    const body = this.bytes === undefined ? Buffer.alloc(0) : this.bytes.subarray(0, this.used);
    this.bytes = undefined;
    this.used = 0;
    return body;
  }
}
