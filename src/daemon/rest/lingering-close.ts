/**
 * What a refused request's unread body gets. Closing the connection at once is what fastify
 * would do, but a connection closed with the client's bytes unread is reset, and the reset can
 * reach the client before the answer it has not read yet: an upload refused as too large while
 * still sending saw `EPIPE` instead of its 413. So the answer goes out on the open connection
 * while the rest of the body is read and discarded (the lingering close of nginx and others),
 * for at most {@link LINGER_MS}; past that the request, and its connection, is destroyed.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long a refused request's remaining bytes are read and discarded. */
export const LINGER_MS = 5_000;

/** Connections whose request was answered while the rest of its body is being discarded. */
const lingering = new WeakSet<Duplex>();

export function discardRest(request: IncomingMessage): void {
  if (request.complete || request.destroyed) return;
  const { socket } = request;
  lingering.add(socket);
  const timer = setTimeout(() => request.destroy(), LINGER_MS);
  const done = () => clearTimeout(timer);
  request
    .once('end', () => {
      done();
      lingering.delete(socket);
    })
    .once('error', done)
    .once('close', done)
    .resume();
}

/**
 * Whether `socket`'s request has had its answer while its body was still being discarded: a
 * body cut short there (the client closed its side) is no new request to answer.
 */
export function answeredWhileDiscarding(socket: Duplex): boolean {
  return lingering.has(socket);
}
