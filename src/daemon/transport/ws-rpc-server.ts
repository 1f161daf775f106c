/**
 * JSON-RPC over WebSocket: the same dispatcher as HTTP, plus a connection object through
 * which methods push notifications (subscriptions). A client that stops reading is
 * disconnected once its unsent backlog passes a bound, so it cannot hold memory or slow the
 * producers of notifications. The bound is on what is already queued, not on the message
 * being sent: a reply larger than the bound still reaches a client that reads.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HostPort } from '../config/option-parsers.js';
import type { AuthToken } from '../datadir/auth-token.js';
import type { Logger } from '../logger.js';
import type { RpcDispatcher } from '../rpc/dispatcher.js';
import type { CallContext, RpcConnection } from '../rpc/registry.js';
import { isAuthenticated } from './auth.js';
import type { RunningServer } from './http-rpc-server.js';
import { endpointUrl, isLoopback, listen } from './listen.js';
import { WsChannel, type MessageHandler } from './ws-channel.js';
import { limitNodeHttpServer, nodeHttpServerOptions } from './node-http-limits.js';

export interface WsRpcServerOptions {
  address: HostPort;
  maxMessageSize: number;
  /** Unsent notification bytes a client may accumulate before it is disconnected. */
  maxBacklogBytes: number;
  /** Most open connections (`--json-rpc.max-connections`). */
  maxConnections: number;
  /** Deadline of the WebSocket handshake request (`--json-rpc.read-timeout`). */
  readTimeoutMs: number;
  token: AuthToken;
  dispatcher: RpcDispatcher;
  logger: Logger;
}

/** Close code used when a client falls too far behind (1008: policy violation). */
const CLOSE_SLOW_CONSUMER = 1008;

class WsConnection implements RpcConnection {
  readonly id = randomUUID();
  private readonly closeListeners: Array<() => void> = [];
  private readonly channel: WsChannel;

  constructor(
    private readonly socket: WebSocket,
    maxBacklogBytes: number,
    handle: MessageHandler,
    onHandlerError: (error: unknown) => void,
  ) {
    this.channel = new WsChannel(socket, maxBacklogBytes, handle, onHandlerError);
    socket.once('close', () => {
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  notify(method: string, params: unknown): boolean {
    if (this.channel.notify(JSON.stringify({ jsonrpc: '2.0', method, params }))) return true;
    if (this.channel.open)
      this.socket.close(
        CLOSE_SLOW_CONSUMER,
        'slow consumer: too many unread messages, disconnected',
      );
    return false;
  }

  onClose(listener: () => void): void {
    if (this.socket.readyState === this.socket.CLOSED) listener();
    else this.closeListeners.push(listener);
  }
}

export async function startWsRpcServer(options: WsRpcServerOptions): Promise<RunningServer> {
  const httpServer = createServer(
    nodeHttpServerOptions(options.readTimeoutMs),
    (_request, response) => {
      response
        .writeHead(426, { 'content-type': 'text/plain' })
        .end('this endpoint speaks JSON-RPC over WebSocket\n');
    },
  );
  limitNodeHttpServer(
    httpServer,
    {
      maxConnections: options.maxConnections,
      readTimeoutMs: options.readTimeoutMs,
      listener: 'JSON-RPC WebSocket',
      connectionLimitFlag: '--json-rpc.max-connections',
    },
    options.logger,
  );
  const wss = new WebSocketServer({ server: httpServer, maxPayload: options.maxMessageSize });

  wss.on('connection', (socket, request) => {
    const context: CallContext = {
      transport: 'ws',
      authenticated: isAuthenticated(request, options.token, true),
      loopback: isLoopback(request.socket.remoteAddress),
      remoteAddress: request.socket.remoteAddress ?? '',
    };
    context.connection = new WsConnection(
      socket,
      options.maxBacklogBytes,
      (text) => options.dispatcher.handleText(text, context),
      (error) =>
        options.logger.error('WebSocket JSON-RPC message failed', { error: String(error) }),
    );
    socket.on('error', (error) =>
      options.logger.debug('WebSocket client error', { error: error.message }),
    );
  });

  const port = await listen(httpServer, options.address, 'json-rpc.ws-address');
  return {
    url: endpointUrl('ws', options.address.host, port),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.close(1001, 'daemon shutting down');
        wss.close(() => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      }),
  };
}
