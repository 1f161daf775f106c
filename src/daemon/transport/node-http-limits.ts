/**
 * Connection limits for the listeners served by `node:http` (the JSON-RPC WebSocket's
 * handshakes, the consensus RPC): a cap on open connections and a deadline for every request.
 *
 * Node's own `requestTimeout` covers a request from its request line to the end of its body,
 * but not the time before the request line: empty lines there are skipped by its parser yet
 * refresh the idle timer, so a client sending only CRLFs kept a connection for ever. Hence one
 * more timer per connection, running whenever no request is in progress: a connection that
 * does not complete a request head within the read timeout of going idle (or of being
 * accepted) is closed, whatever it sends meanwhile.
 */
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';

export interface NodeHttpLimits {
  maxConnections: number;
  readTimeoutMs: number;
  /** Names the listener and the option of the cap in the warning logged when it is reached. */
  listener: string;
  connectionLimitFlag: string;
}

/** How often Node checks requests against `requestTimeout` (its default is 30 s). */
const CHECK_INTERVAL_MS = 500;

/** Options for `createServer` that make Node enforce the read timeout on each request. */
export function nodeHttpServerOptions(readTimeoutMs: number): ServerOptions {
  return {
    requestTimeout: readTimeoutMs,
    headersTimeout: readTimeoutMs,
    keepAliveTimeout: readTimeoutMs,
    connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, readTimeoutMs),
  };
}

/**
 * Caps `server`'s connections (more are closed as they arrive, logged once until one is
 * accepted again) and closes connections that stay without a complete request head.
 */
export function limitNodeHttpServer(server: Server, limits: NodeHttpLimits, logger: Logger): void {
  server.maxConnections = limits.maxConnections;
  let refusing = false;
  server.on('drop', () => {
    if (refusing) return;
    refusing = true;
    logger.warn(`${limits.listener} connection refused: connection limit reached`, {
      maxConnections: limits.maxConnections,
      option: limits.connectionLimitFlag,
    });
  });

  const idle = new WeakMap<Socket, { timer: NodeJS.Timeout | undefined; active: number }>();
  const arm = (socket: Socket) => setTimeout(() => socket.destroy(), limits.readTimeoutMs).unref();
  server.on('connection', (socket: Socket) => {
    refusing = false;
    const state = { timer: arm(socket), active: 0 };
    idle.set(socket, state);
    socket.once('close', () => clearTimeout(state.timer));
  });
  server.on('request', (request, response) => {
    const socket = request.socket as Socket;
    const state = idle.get(socket);
    if (state === undefined) return;
    state.active++;
    clearTimeout(state.timer);
    response.once('close', () => {
      if (--state.active === 0 && !socket.destroyed) state.timer = arm(socket);
    });
  });
  server.on('upgrade', (request) => {
    clearTimeout(idle.get(request.socket as Socket)?.timer);
  });
}
