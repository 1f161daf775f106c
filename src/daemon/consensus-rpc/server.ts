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
import type { HostPort } from '../config/option-parsers.js';
import { initCrypto, sha256 } from '../crypto/wasm-crypto.js';
import { InvalidInputError } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import { parseQuery } from '../events/query/index.js';
import type { Logger } from '../logger.js';
import type { RunningServer } from '../transport/http-rpc-server.js';
import { endpointUrl, listen } from '../transport/listen.js';
import { blockEvents } from './block-events.js';
import { BlockResults } from './block-results.js';
import type { ConsensusChain } from './block-results.js';
import { MAX_BODY_BYTES, httpHandler } from './http-handler.js';
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
  /** Node name in `status`; default `node-cli`. */
  moniker?: string;
  /** Most WebSocket clients at once (`--rpc.max-subscription-clients`). */
  maxClients: number;
  /** Most subscriptions per WebSocket client (`--rpc.max-subscriptions-per-client`). */
  maxSubscriptionsPerClient: number;
  /** Unsent bytes a WebSocket client may accumulate before it is disconnected. */
  maxBacklogBytes: number;
  /** Whether blocks are being produced (`status` and `health` report it). */
  production: () => ProductionState;
  logger: Logger;
}

export interface ConsensusRpcServer extends RunningServer {
  /** `ws://host:port/websocket`, the value of `endpoints.consensusWs` in daemon.json. */
  websocketUrl: string;
}

/** Close code for a client over the client limit (1013: try again later). */
const CLOSE_TOO_MANY_CLIENTS = 1013;
/** How long shutdown waits for WebSocket clients to acknowledge the close. */
const CLOSE_GRACE_MS = 1000;
/** Keys whose values are addresses, compared ignoring letter case (decisions §6). */
const ADDRESS_KEYS: ReadonlySet<string> = new Set(['ethereum_tx.sender', 'ethereum_tx.recipient']);

/**
 * Starts the consensus RPC server and subscribes it to committed blocks.
 *
 * @example
 * ```ts
 * const server = await startConsensusRpcServer({
 *   address: config['rpc.laddr'], chain, bus, validatorKey: nodeKey,
 *   maxClients: config['rpc.max-subscription-clients'],
 *   maxSubscriptionsPerClient: config['rpc.max-subscriptions-per-client'],
 *   maxBacklogBytes: 16 * 1024 * 1024, logger,
 * });
 * endpoints.consensusWs = server.websocketUrl;
 * ```
 */
export async function startConsensusRpcServer(
  options: ConsensusRpcServerOptions,
): Promise<ConsensusRpcServer> {
  const { chain, logger } = options;
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
    parseQuery: (text) => {
      try {
        return parseQuery(text, { caseInsensitiveKeys: ADDRESS_KEYS });
      } catch (error) {
        throw new InvalidInputError(`failed to parse query: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
  };
  const onInternal = (error: unknown) =>
    logger.error('consensus RPC call failed', { error: String(error) });

  const server = createServer(httpHandler(context, onInternal));
  server.headersTimeout = 30_000;

  const sessions = new Set<ConsensusWsSession>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  server.on('upgrade', (request, socket, head) => {
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
        routes: ROUTES,
        context,
        logger,
      });
      sessions.add(session);
      ws.once('close', () => sessions.delete(session));
    });
  });

  const stopListening = options.bus.onBlock((event) => {
    const block = blocks.remember(event);
    const listening = [...sessions].filter((session) => session.subscriptionCount > 0);
    if (listening.length === 0) return;
    const events = blockEvents(block, context.header);
    for (const session of listening) session.deliver(events);
  });

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
