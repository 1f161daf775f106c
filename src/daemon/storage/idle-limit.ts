/**
 * An upload's bytes with a limit on how long the node waits for the next ones: a client that
 * declares more than it sends and keeps the connection open, or a chunked body that stops,
 * would otherwise hold its upload (and its chunk buffers) for as long as the connection lives.
 * The clock runs only while the node waits for the client, not while it writes what came.
 */

/**
 * `source`'s pieces; throws `timedOut()` when none arrives for `ms` while awaited. The stalled
 * source is left as it is rather than destroyed, since destroying a request closes its socket
 * and the client would get no answer; the read still pending ends with the connection.
 */
export async function* idleLimited(
  source: AsyncIterable<Uint8Array>,
  ms: number,
  timedOut: () => Error,
): AsyncGenerator<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  let stalled = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const expiry = new Promise<'stalled'>((resolve) => {
        timer = setTimeout(() => resolve('stalled'), ms);
      });
      const next = iterator.next();
      const result = await Promise.race([next, expiry]).finally(() => clearTimeout(timer));
      if (result === 'stalled') {
        stalled = true;
        next.catch(() => undefined);
        throw timedOut();
      }
      if (result.done) return;
      yield result.value;
    }
  } finally {
    // Returning a source whose read is pending would wait for that read.
    if (!stalled) await iterator.return?.();
  }
}
