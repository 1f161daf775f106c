/**
 * JSON-RPC over WebSocket: the same dispatcher as HTTP, plus a connection object through
 * which methods push notifications (subscriptions). What one client can make the server hold
 * or do is bounded by its `WsChannel`: requests in flight, unread replies, unread
 * notifications (past that bound the client is closed as a slow consumer), and the slice of
 * the main thread its messages take per turn of the event loop.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HostPort } from '../../shared/config/option-parsers.js';
import type { AuthToken } from '../datadir/auth-token.js';
import type { Logger } from '../logger.js';
import type { RpcDispatcher } from '../rpc/dispatcher.js';
import type { CallContext, RpcConnection } from '../rpc/registry.js';
import { isAuthenticated } from './auth.js';
import {
  ListenerGuard,
  loopbackTrusted,
  refuseUpgrade,
  type BrowserPolicy,
} from './browser-guard.js';
import type { RunningServer } from './http-rpc-server.js';
import { endpointUrl, isLoopback, listen } from './listen.js';
import { limitNodeHttpServer, nodeHttpServerOptions } from './node-http-limits.js';
import { WsChannel, type MessageHandler } from './ws-channel.js';

export interface WsRpcServerOptions {
  address: HostPort;
  maxMessageSize: number;
  /** Unsent notification bytes a client may accumulate before it is disconnected. */
  maxBacklogBytes: number;
  /** Most open connections (`--json-rpc.max-connections`). */
  maxConnections: number;
  /** Deadline of the WebSocket handshake request (`--json-rpc.read-timeout`). */
  readTimeoutMs: number;
  /** Host and Origin allowlists, checked before the upgrade (see browser-guard.ts). */
  browserPolicy: BrowserPolicy;
  token: AuthToken;
  dispatcher: RpcDispatcher;
  logger: Logger;
  /** Told about each client dropped as a slow consumer. */
  onSlowConsumer?: () => void;
}

export interface WsRpcServer extends RunningServer {
  /** Open WebSocket connections. */
  connections(): number;
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
    private readonly onSlowConsumer: () => void,
  ) {
    this.channel = new WsChannel(socket, maxBacklogBytes, handle, onHandlerError);
    socket.once('close', () => {
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  notify(method: string, paramsJson: string): boolean {
    const text = `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${paramsJson}}`;
    if (this.channel.notify(text)) return true;
    if (this.channel.open) {
      this.socket.close(
        CLOSE_SLOW_CONSUMER,
        'slow consumer: too many unread messages, disconnected',
      );
      this.onSlowConsumer();
    }
    return false;
  }

  onClose(listener: () => void): void {
    if (this.socket.readyState === this.socket.CLOSED) listener();
    else this.closeListeners.push(listener);
  }
}

export async function startWsRpcServer(options: WsRpcServerOptions): Promise<WsRpcServer> {
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
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageSize });
  const guard = new ListenerGuard(options.browserPolicy, options.address.host, 'GET');
  httpServer.on('upgrade', (request, socket, head) => {
    const refused = guard.checkUpgrade(request.headers);
    if (refused) {
      refuseUpgrade(socket, refused);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const context: CallContext = {
      transport: 'ws',
      authenticated: isAuthenticated(request, options.token, true),
      loopback: loopbackTrusted(isLoopback(request.socket.remoteAddress), request.headers),
      remoteAddress: request.socket.remoteAddress ?? '',
    };
    context.connection = new WsConnection(
      socket,
      options.maxBacklogBytes,
      (text) => options.dispatcher.handleText(text, context),
      (error) =>
        options.logger.error('WebSocket JSON-RPC message failed', { error: String(error) }),
      options.onSlowConsumer ?? (() => undefined),
    );
    socket.on('error', (error) =>
      options.logger.debug('WebSocket client error', { error: error.message }),
    );
  });

  const port = await listen(httpServer, options.address, 'json-rpc.ws-address');
  return {
    url: endpointUrl('ws', options.address.host, port),
    listening: () => httpServer.listening,
    connections: () => wss.clients.size,
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
