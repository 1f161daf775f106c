/**
 * What the node tells its metrics, as one interface chosen once at start-up: the Prometheus
 * recorder with `--metrics.enable`, {@link NO_METRICS} without. The JSON-RPC dispatcher, the
 * block producer and the chain call it unconditionally; the no-op one reads no clock and keeps
 * no state, so a node without metrics pays two empty calls per JSON-RPC call. Hooks that would
 * cost more (a promise per admission, a fastify hook per REST request) are not installed at all
 * without metrics.
 *
 * Two kinds of facts: events, reported as they happen (a call answered, a block made), and
 * readings of state the node keeps anyway (head, pool sizes, connections), registered once and
 * taken at each scrape, so they cost nothing between scrapes.
 */
import type { CacheCounts } from '../chain/lru-cache.js';

/** The WebSocket endpoints whose connections, subscriptions and dropped slow consumers are counted. */
export const SOCKET_KINDS = ['json_rpc', 'consensus'] as const;
export type SocketKind = (typeof SOCKET_KINDS)[number];

/** State read at each scrape. */
export type Reading =
  | { metric: 'head'; read: () => { number: bigint; timestampSeconds: bigint } }
  | { metric: 'pool'; read: () => { pending: number; queued: number } }
  | { metric: 'connections'; socket: SocketKind; read: () => number }
  | { metric: 'subscriptions'; socket: SocketKind; read: () => number }
  | { metric: 'call_queue'; read: () => number }
  | { metric: 'database_bytes'; read: () => number }
  | { metric: 'caches'; read: () => Readonly<Record<string, CacheCounts>> };

export interface MetricsRecorder {
  /** Start of something whose duration is reported: a clock in ms, or 0 without metrics. */
  now(): number;
  /**
   * A JSON-RPC call answered: `method` as the caller spelled it (the recorder bounds it),
   * `errorCode` undefined for a success.
   */
  rpcCall(method: string, errorCode: number | undefined, startedAt: number): void;
  /** A block produced (executed and committed) with `txCount` transactions. */
  blockProduced(startedAt: number, txCount: number): void;
  /** A block's write transaction committed to the chain store. */
  storeCommitted(startedAt: number): void;
  /** An admission to the pool: `refusal` is undefined when the transaction was accepted. */
  admission(refusal: unknown): void;
  slowConsumerDropped(socket: SocketKind): void;
  /** An eth_call or eth_estimateGas ended for running past `--json-rpc.evm-timeout`. */
  callTimedOut(): void;
  /** A REST request answered: `route` is the route's pattern, never the raw path. */
  restRequest(route: string, method: string, status: number, seconds: number): void;
  /** Registers state to read at each scrape. */
  read(reading: Reading): void;
}

const nothing = (): void => undefined;

/** The recorder of a node without metrics. */
export const NO_METRICS: MetricsRecorder = {
  now: () => 0,
  rpcCall: nothing,
  blockProduced: nothing,
  storeCommitted: nothing,
  admission: nothing,
  slowConsumerDropped: nothing,
  callTimedOut: nothing,
  restRequest: nothing,
  read: nothing,
};
