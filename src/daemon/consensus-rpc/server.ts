/**
 * The CometBFT-compatible consensus RPC on one listener (`--rpc.laddr`):
 *
 * - `GET /<route>?arg=value` (CometBFT's URI form) and JSON-RPC over `POST /`, for the routes
 *   of `routes.ts`;
 * - the WebSocket at `/websocket`: the same routes plus `subscribe`, `unsubscribe` and
 *   `unsubscribe_all`, with events published after each commit.
 *
 * The bus listener only formats and queues: each event's JSON is built once per block and
 * handed to every matching subscription without awaiting any socket, so publishing costs
 * O(subscribers) and a slow client cannot hold up the chain (see `ws-session.ts`).
 */
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import type { HostPort } from '../../shared/config/option-parsers.js';
import { initCrypto, sha256 } from '../crypto/wasm-crypto.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logger.js';
import {
  ListenerGuard,
  guardedRequestListener,
  refuseUpgrade,
  type BrowserPolicy,
} from '../transport/browser-guard.js';
import type { RunningServer } from '../transport/http-rpc-server.js';
import { endpointUrl, listen } from '../transport/listen.js';
import { limitNodeHttpServer, nodeHttpServerOptions } from '../transport/node-http-limits.js';
import { blockEvents, rewindEvent, type PublishedEvent } from './block-events.js';
import { BlockResults } from './block-results.js';
import type { ConsensusChain } from './block-results.js';
import { parseClientQuery, type QueryLimits } from './client-query.js';
import { httpHandler } from './http-handler.js';
import type { HttpLimits } from './http-handler.js';
import type { ProductionState } from '../chain/production-health.js';
import { ROUTES } from './routes.js';
import type { RouteContext } from './routes.js';
import { upperHex } from './wire-encoding.js';
import { ConsensusWsSession } from './ws-session.js';

/** What {@link startConsensusRpcServer} needs; the limits come from the option table. */
export interface ConsensusRpcServerOptions {
  /** Listen address (`--rpc.laddr`); port 0 picks a free port. */
  address: HostPort;
  chain: ConsensusChain;
  bus: EventBus;
  /** The key shown as the validator's and node's: its compressed secp256k1 public key (33 bytes). */
  validatorKey: { readonly publicKey: Uint8Array };
  /** Host and Origin allowlists: the JSON-RPC listeners' flags, one policy for every listener. */
  browserPolicy: BrowserPolicy;
  /** Node name in `status`; default `node-cli`. */
  moniker?: string;
  /** Most WebSocket clients at once (`--rpc.max-subscription-clients`). */
  maxClients: number;
  /** Most subscriptions per WebSocket client (`--rpc.max-subscriptions-per-client`). */
  maxSubscriptionsPerClient: number;
  /** Unsent event bytes a WebSocket client may accumulate before it is disconnected. */
  maxBacklogBytes: number;
  /** Size of a query (`--rpc.max-query-length`, `--rpc.max-query-conditions`). */
  queryLimits: QueryLimits;
  limits: ConsensusTransportLimits;
  /** Whether blocks are being produced (`status` and `health` report it). */
  production: () => ProductionState;
  logger: Logger;
  /** Told about each WebSocket client dropped as a slow consumer. */
  onSlowConsumer?: () => void;
}

/**
 * The listener's limits: request size, nesting and batches (also the WebSocket message size,
 * `maxBodyBytes`, as in CometBFT), open connections (`--rpc.max-open-connections`) and the
 * deadline of a request (`--rpc.read-timeout`).
 */
export interface ConsensusTransportLimits extends HttpLimits {
  maxConnections: number;
  readTimeoutMs: number;
}

export interface ConsensusRpcServer extends RunningServer {
  /** `ws://host:port/websocket`, the value of `endpoints.consensusWs` in daemon.json. */
  websocketUrl: string;
  /** Open WebSocket clients. */
  connections(): number;
  /** Subscriptions of all WebSocket clients. */
  subscriptions(): number;
}

/** Close code for a client over the client limit (1013: try again later). */
const CLOSE_TOO_MANY_CLIENTS = 1013;
/** How long shutdown waits for WebSocket clients to acknowledge the close. */
const CLOSE_GRACE_MS = 1000;

/**
 * Starts the consensus RPC server and subscribes it to committed blocks.
 *
 * @example
 * ```ts
 * const server = await startConsensusRpcServer({
 *   address: config['rpc.laddr'], chain, bus, validatorKey: nodeKey,
 *   maxClients: config['rpc.max-subscription-clients'],
 *   maxSubscriptionsPerClient: config['rpc.max-subscriptions-per-client'],
 *   maxBacklogBytes: 16 * 1024 * 1024, browserPolicy, limits,
 *   queryLimits: { maxLength: 512, maxConditions: 16 }, logger,
 * });
 * endpoints.consensusWs = server.websocketUrl;
 * ```
 */
export async function startConsensusRpcServer(
  options: ConsensusRpcServerOptions,
): Promise<ConsensusRpcServer> {
  const { chain, logger, limits } = options;
  await initCrypto();
  const blocks = new BlockResults(chain);
  // The key's hash is taken when first asked for: deriving the public key is the process's
  // first secp256k1 operation, which start-up should not wait for (see `NodeKey`).
  let identity: { validatorsHash: string; nodeId: string } | undefined;
  const validatorIdentity = () => {
    if (identity === undefined) {
      const keyHash = upperHex(sha256(options.validatorKey.publicKey));
      identity = { validatorsHash: keyHash, nodeId: keyHash.slice(0, 40).toLowerCase() };
    }
    return identity;
  };
  const context: RouteContext = {
    chain,
    blocks,
    header: {
      chainId: chain.chainId.toString(),
      get validatorsHash() {
        return validatorIdentity().validatorsHash;
      },
    },
    node: {
      get nodeId() {
        return validatorIdentity().nodeId;
      },
      moniker: options.moniker ?? 'node-cli',
      listenAddress: endpointUrl('tcp', options.address.host, options.address.port),
      get validatorPublicKey() {
        return options.validatorKey.publicKey;
      },
    },
    production: options.production,
    parseQuery: (text) => parseClientQuery(text, options.queryLimits),
  };
  const onInternal = (error: unknown) =>
    logger.error('consensus RPC call failed', { error: String(error) });

  const guard = new ListenerGuard(
    options.browserPolicy,
    options.address.host,
    'GET, POST, OPTIONS',
  );
  const server = createServer(
    nodeHttpServerOptions(limits.readTimeoutMs),
    guardedRequestListener(guard, httpHandler(context, limits, onInternal)),
  );
  limitNodeHttpServer(
    server,
    {
      maxConnections: limits.maxConnections,
      readTimeoutMs: limits.readTimeoutMs,
      listener: 'consensus RPC',
      connectionLimitFlag: '--rpc.max-open-connections',
    },
    logger,
  );

  const sessions = new Set<ConsensusWsSession>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxBodyBytes });
  server.on('upgrade', (request, socket, head) => {
    const refused = guard.checkUpgrade(request.headers);
    if (refused) {
      refuseUpgrade(socket, refused);
      return;
    }
    if (new URL(request.url ?? '/', 'http://consensus-rpc').pathname !== '/websocket') {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', (error) =>
        logger.debug('consensus WebSocket client error', { error: error.message }),
      );
      if (sessions.size >= options.maxClients) {
        ws.close(
          CLOSE_TOO_MANY_CLIENTS,
          `max_subscription_clients ${options.maxClients} reached (--rpc.max-subscription-clients)`,
        );
        return;
      }
      const session = new ConsensusWsSession(ws, {
        maxSubscriptions: options.maxSubscriptionsPerClient,
        maxBacklogBytes: options.maxBacklogBytes,
        limits,
        routes: ROUTES,
        context,
        logger,
        onSlowConsumer: options.onSlowConsumer,
      });
      sessions.add(session);
      ws.once('close', () => sessions.delete(session));
    });
  });

  const deliver = (events: () => PublishedEvent[]) => {
    const listening = [...sessions].filter((session) => session.subscriptionCount > 0);
    if (listening.length === 0) return;
    const published = events();
    for (const session of listening) session.deliver(published);
  };
  const stopBlocks = options.bus.onBlock((event) => {
    const block = blocks.remember(event);
    deliver(() => blockEvents(block, context.header));
  });
  const stopRewinds = options.bus.onRewind((event) => {
    blocks.forget();
    deliver(() => [
      rewindEvent({
        height: event.head.number,
        previousHeight: event.removed.at(-1)?.block.number ?? event.head.number,
        cause: event.cause,
      }),
    ]);
  });
  const stopListening = () => {
    stopBlocks();
    stopRewinds();
  };

  let port: number;
  try {
    port = await listen(server, options.address, 'rpc.laddr');
  } catch (error) {
    stopListening();
    throw error;
  }
  context.node.listenAddress = endpointUrl('tcp', options.address.host, port);
  return {
    url: endpointUrl('http', options.address.host, port),
    websocketUrl: endpointUrl('ws', options.address.host, port, '/websocket'),
    listening: () => server.listening,
    connections: () => sessions.size,
    subscriptions: () => {
      let count = 0;
      for (const session of sessions) count += session.subscriptionCount;
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        stopListening();
        for (const client of wss.clients) client.close(1001, 'daemon shutting down');
        // A client that does not read never completes the closing handshake; do not wait for it.
        const cutOff = setTimeout(() => {
          for (const client of wss.clients) client.terminate();
        }, CLOSE_GRACE_MS);
        wss.close(() => {
          clearTimeout(cutOff);
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }),
  };
}
