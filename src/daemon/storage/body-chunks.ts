/**
 * An upload's body cut into chunks of exactly `chunkSize` bytes (the last one shorter) as the
 * stream's 'data' events bring it. Each piece (64 KiB from an HTTP socket) is copied into the
 * chunk being filled with no asynchronous step of its own: async iterators over the stream, the
 * idle limit and the chunker took several promises and a timer per piece, about a tenth of an
 * upload's CPU (docs/benchmarks.md, "Storage upload: inodes and pieces"). The stream is paused
 * while a filled chunk waits for the consumer, so no more than one chunk and the piece that
 * completed it are held beyond what the consumer took.
 *
 * Refuses a stream longer than `maxBytes` as soon as it passes it and, with `idleMs`, one that
 * sends nothing for that long while the node waits for it; the clock stops while the consumer
 * works. Either way the stream is left as it is (paused), so that the caller can still answer
 * on its connection. A consumer that stops early for a reason of its own destroys the stream,
 * as leaving an async iterator does.
 */
import type { Readable } from 'node:stream';

export interface BodyChunkOptions {
  chunkSize: number;
  maxBytes: number;
  tooLarge: () => Error;
  /** How long to wait for the next bytes; no limit without. */
  idleMs?: number;
  timedOut: () => Error;
  /**
   * A buffer of `chunkSize` bytes to fill. A consumer that hands back the buffers it is done
   * with reuses them instead of allocating one per chunk.
   */
  nextBuffer?: () => Buffer;
}

const prematureClose = () =>
  Object.assign(new Error('the body ended before its last byte'), {
    code: 'ERR_STREAM_PREMATURE_CLOSE',
  });

export async function* bodyChunks(
  source: Readable,
  options: BodyChunkOptions,
): AsyncGenerator<Buffer> {
  const { chunkSize, maxBytes, idleMs } = options;
  const nextBuffer = options.nextBuffer ?? (() => Buffer.allocUnsafe(chunkSize));
  /** Pieces arrived and not yet copied: the rest of the piece that completed the last chunk. */
  const pending: Buffer[] = [];
  let chunk: Buffer | undefined;
  let filled = 0;
  let total = 0;
  /** A filled chunk the consumer has not taken. */
  let full: Buffer | undefined;
  let ended = false;
  let failure: Error | undefined;
  /** Whether we stopped reading for a reason the caller answers on the connection. */
  let refused = false;
  let wake: (() => void) | undefined;
  let clock: NodeJS.Timeout | undefined;

  const signal = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const stopClock = () => {
    clearTimeout(clock);
    clock = undefined;
  };
  const fail = (error: Error) => {
    failure ??= error;
    stopClock();
    signal();
  };
  const refuse = (error: Error) => {
    refused = true;
    source.pause();
    fail(error);
  };
  const runClock = () => {
    if (idleMs === undefined) return;
    if (clock) clock.refresh();
    else clock = setTimeout(() => refuse(options.timedOut()), idleMs);
  };
  /** Copies pending pieces into the chunk until it is full or nothing is pending. */
  const copyPending = () => {
    while (full === undefined && pending.length > 0) {
      const piece = pending[0] as Buffer;
      chunk ??= nextBuffer();
      const take = Math.min(chunkSize - filled, piece.length);
      chunk.set(take === piece.length ? piece : piece.subarray(0, take), filled);
      filled += take;
      if (take === piece.length) pending.shift();
      else pending[0] = piece.subarray(take);
      if (filled === chunkSize) {
        full = chunk;
        chunk = undefined;
        filled = 0;
      }
    }
  };

  const onData = (piece: Buffer) => {
    total += piece.length;
    if (total > maxBytes) return refuse(options.tooLarge());
    pending.push(piece);
    copyPending();
    if (full === undefined) return runClock();
    source.pause();
    stopClock();
    signal();
  };
  const onEnd = () => {
    ended = true;
    stopClock();
    signal();
  };
  const onClose = () => {
    if (!ended) fail(prematureClose());
  };
  source.on('data', onData).on('end', onEnd).on('close', onClose).on('error', fail);
  source.pause();

  try {
    for (;;) {
      if (failure) throw failure;
      copyPending();
      if (full !== undefined) {
        const taken = full;
        full = undefined;
        yield taken;
        continue;
      }
      if (ended) {
        if (chunk !== undefined && filled > 0) yield chunk.subarray(0, filled);
        return;
      }
      const arrived = new Promise<void>((resolve) => (wake = resolve));
      source.resume();
      runClock();
      await arrived;
    }
  } finally {
    stopClock();
    // The error listener stays: an error after this must not be an unhandled 'error' event.
    source.off('data', onData).off('end', onEnd).off('close', onClose);
    if (!ended && !refused) source.destroy();
  }
}
