/**
 * JSON-RPC over WebSocket: the same dispatcher as HTTP, plus a connection object through
 * which methods push notifications (subscriptions). A client that stops reading is
 * disconnected once its unsent backlog passes a bound, so it cannot hold memory or slow the
 * producers of notifications. A connection's requests take a bounded slice of the main thread
 * per turn of the event loop (`ws-inbox.ts`), however many it sends at once.
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
import {
  ListenerGuard,
  loopbackTrusted,
  refuseUpgrade,
  type BrowserPolicy,
} from './browser-guard.js';
import type { RunningServer } from './http-rpc-server.js';
import { endpointUrl, isLoopback, listen } from './listen.js';
import { WsInbox } from './ws-inbox.js';

export interface WsRpcServerOptions {
  address: HostPort;
  maxMessageSize: number;
  /** Unsent bytes a client may accumulate before it is disconnected. */
  maxBacklogBytes: number;
  /** Host and Origin allowlists, checked before the upgrade (see browser-guard.ts). */
  browserPolicy: BrowserPolicy;
  token: AuthToken;
  dispatcher: RpcDispatcher;
  logger: Logger;
}

/** Close code used when a client falls too far behind (1008: policy violation). */
const CLOSE_SLOW_CONSUMER = 1008;

class WsConnection implements RpcConnection {
  readonly id = randomUUID();
  private readonly closeListeners: Array<() => void> = [];

  constructor(
    private readonly socket: WebSocket,
    private readonly maxBacklogBytes: number,
  ) {
    socket.once('close', () => {
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  send(text: string): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    if (this.socket.bufferedAmount + text.length > this.maxBacklogBytes) {
      this.socket.close(
        CLOSE_SLOW_CONSUMER,
        'slow consumer: too many unread messages, disconnected',
      );
      return false;
    }
    this.socket.send(text);
    return true;
  }

  notify(method: string, paramsJson: string): boolean {
    return this.send(`{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${paramsJson}}`);
  }

  onClose(listener: () => void): void {
    if (this.socket.readyState === this.socket.CLOSED) listener();
    else this.closeListeners.push(listener);
  }
}

export async function startWsRpcServer(options: WsRpcServerOptions): Promise<RunningServer> {
  const httpServer = createServer((_request, response) => {
    response
      .writeHead(426, { 'content-type': 'text/plain' })
      .end('this endpoint speaks JSON-RPC over WebSocket\n');
  });
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

  wss.on('connection', (socket, request) => {
    const connection = new WsConnection(socket, options.maxBacklogBytes);
    const context: CallContext = {
      transport: 'ws',
      authenticated: isAuthenticated(request, options.token, true),
      loopback: loopbackTrusted(isLoopback(request.socket.remoteAddress), request.headers),
      remoteAddress: request.socket.remoteAddress ?? '',
      connection,
    };
    const inbox = new WsInbox(socket, (text) => {
      Promise.resolve(options.dispatcher.handleText(text, context))
        .then((reply) => {
          if (reply !== undefined) connection.send(reply);
        })
        .catch((error: unknown) =>
          options.logger.error('WebSocket JSON-RPC message failed', { error: String(error) }),
        );
    });
    socket.on('message', (data, isBinary) => {
      inbox.push(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString());
    });
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
