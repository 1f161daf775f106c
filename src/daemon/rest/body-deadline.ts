/**
 * A request body with a deadline: Node's `requestTimeout` would cover every request of the REST
 * listener alike, and a streamed upload may rightly take longer than any fixed time (it has
 * `--storage.upload-idle-timeout` instead). So the bodies parsed whole (JSON) get a deadline of
 * their own, and a body that trickles in byte by byte cannot hold a connection for ever.
 */
import { PassThrough, type Readable } from 'node:stream';

/**
 * `source`'s bytes; the returned stream fails with `expired()` if they have not all come within
 * `ms`. `source` itself is left alone (destroying a request closes its socket, and the client
 * would get no answer); the caller closes the connection after answering.
 */
export function bodyWithDeadline(source: Readable, ms: number, expired: () => Error): Readable {
  const body = new PassThrough();
  const timer = setTimeout(() => {
    source.unpipe(body);
    body.destroy(expired());
  }, ms);
  const stop = () => clearTimeout(timer);
  source.once('end', stop).once('close', stop);
  body.once('close', stop);
  source.once('error', (error) => body.destroy(error));
  // A body refused before it was read (a wrong content type) has no reader to tell: its error
  // must not become the process's uncaught exception.
  body.on('error', () => undefined);
  return source.pipe(body);
}
