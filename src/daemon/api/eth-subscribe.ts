/**
 * eth_subscribe / eth_unsubscribe over persistent connections (WebSocket).
 *
 * Why it is shaped this way:
 * - Every subscription is a listener on the event bus; notifications go out in the standard
 *   form `{jsonrpc, method: 'eth_subscription', params: {subscription, result}}`.
 * - Publishing never waits for a client: `RpcConnection.notify` only queues bytes, and returns
 *   false once the transport has dropped the client (too slow, or gone). The subscription then
 *   cancels itself, so a dead client costs nothing on later blocks.
 * - Subscriptions belong to their connection: ids are looked up per connection and all of a
 *   connection's subscriptions end when it closes.
 * - A notification's result is serialised once per event, however many subscriptions receive
 *   it (a block for every newHeads subscription, a log for every logs subscription it matches,
 *   a pending transaction), and each subscription only wraps that text with its id; a
 *   connection holds at most `maxPerConnection` subscriptions
 *   (`--json-rpc.ws-max-subscriptions`), so the work of one event stays bounded per client.
 * - Like geth, there is no sync to report: a `syncing` subscription receives a single `false`.
 */
import type { ChainLog, StoredBlock } from '../chain/types.js';
import { LimitExceededError, NotFoundError, UnsupportedError } from '../../shared/errors.js';
import { rewoundLogs, type Unsubscribe } from '../events/event-bus.js';
import { logCriteria, logMatcher, type LogFilterObject } from '../events/log-filter.js';
import { newFilterId } from '../events/polling-filters.js';
import { validateParams, type JsonSchema, type ParamSpec } from '../rpc/params.js';
import {
  defineMethod,
  type CallContext,
  type MethodDefinition,
  type RpcConnection,
} from '../rpc/registry.js';
import type { PooledTransaction } from '../txpool/types.js';
import { logFilterSchema, serialiseLog } from './eth-logs.js';
import { formatBlock, formatTransaction } from './formatters.js';
import { booleanSchema } from './hex-schemas.js';
import type { NodeServices } from './services.js';

export const SUBSCRIPTION_KINDS = [
  'newHeads',
  'logs',
  'newPendingTransactions',
  'syncing',
] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

const kindParam: ParamSpec = {
  name: 'subscription',
  schema: {
    type: 'string',
    enum: [...SUBSCRIPTION_KINDS],
    description: `one of ${SUBSCRIPTION_KINDS.join(', ')}`,
  },
};

const optionsSchemas: Record<SubscriptionKind, JsonSchema> = {
  newHeads: {
    type: 'object',
    properties: { includeTransactions: booleanSchema },
    description: 'an object {includeTransactions: boolean}',
  },
  logs: logFilterSchema,
  newPendingTransactions: {
    ...booleanSchema,
    description: 'a boolean (true: full transaction objects instead of hashes)',
  },
  syncing: { description: 'nothing' },
};

const optionsParam: ParamSpec = { name: 'options', schema: {}, optional: true };

/**
 * Sends a result, given as JSON text, to one subscription; false once the connection can no
 * longer take notifications.
 */
type Send = (resultJson: string) => boolean;

/** `serialise(key)`, computed once per key for as long as the key lives. */
function onceFor<K extends object>(serialise: (key: K) => string): (key: K) => string {
  const texts = new WeakMap<K, string>();
  return (key) => {
    let text = texts.get(key);
    if (text === undefined) {
      text = serialise(key);
      texts.set(key, text);
    }
    return text;
  };
}

export interface SubscribeLimits {
  /** Most subscriptions of one connection (`--json-rpc.ws-max-subscriptions`). */
  maxPerConnection: number;
}

/** The subscription methods; register them in the `eth` namespace. */
export function ethSubscribeMethods(
  services: Pick<NodeServices, 'bus' | 'format' | 'metrics'>,
  limits: SubscribeLimits,
): MethodDefinition[] {
  const { bus } = services;
  const byConnection = new Map<string, Map<string, Unsubscribe>>();
  services.metrics.read({
    metric: 'subscriptions',
    socket: 'json_rpc',
    read: () => {
      let count = 0;
      for (const subscriptions of byConnection.values()) count += subscriptions.size;
      return count;
    },
  });
  const headJson = [false, true].map((full) =>
    onceFor((block: StoredBlock) => JSON.stringify(formatBlock(block, full, services.format))),
  );
  const logJson = onceFor<ChainLog>(serialiseLog);
  const pendingJson = onceFor(({ tx, sender }: PooledTransaction) =>
    JSON.stringify(formatTransaction(tx, sender)),
  );

  const requireConnection = (context: CallContext): RpcConnection => {
    if (context.connection === undefined) throw new UnsupportedError('notifications not supported');
    return context.connection;
  };

  const subscriptionsOf = (connection: RpcConnection): Map<string, Unsubscribe> => {
    let subscriptions = byConnection.get(connection.id);
    if (subscriptions === undefined) {
      const created = new Map<string, Unsubscribe>();
      byConnection.set(connection.id, created);
      connection.onClose(() => {
        for (const cancel of created.values()) cancel();
        byConnection.delete(connection.id);
      });
      subscriptions = created;
    }
    return subscriptions;
  };

  const listen = (kind: SubscriptionKind, options: unknown, send: Send): Unsubscribe => {
    switch (kind) {
      case 'newHeads': {
        const full = (options as { includeTransactions?: boolean } | undefined)
          ?.includeTransactions;
        const json = headJson[full === true ? 1 : 0];
        return bus.onBlock((event) => send(json(event.block)));
      }
      case 'logs': {
        const matches = logMatcher(logCriteria((options ?? {}) as LogFilterObject));
        const sendMatching = (logs: readonly ChainLog[]) => {
          for (const log of logs) if (matches(log) && !send(logJson(log))) return;
        };
        const stopBlocks = bus.onBlock((event) => {
          for (const receipt of event.receipts) sendMatching(receipt.logs);
        });
        // A development rewind announces the logs it took away, as geth does a reorganisation's.
        const stopRewinds = bus.onRewind((event) => {
          for (const { logs } of rewoundLogs(event)) sendMatching(logs);
        });
        return () => {
          stopBlocks();
          stopRewinds();
        };
      }
      case 'newPendingTransactions': {
        const full = options === true;
        return bus.onPendingTx((pooled) =>
          send(full ? pendingJson(pooled) : JSON.stringify(pooled.hashHex)),
        );
      }
      case 'syncing': {
        // After the reply carrying the id, which the dispatcher sends once this handler returns.
        const timer = setImmediate(() => send('false'));
        return () => clearImmediate(timer);
      }
    }
  };

  return [
    defineMethod<[SubscriptionKind, unknown]>({
      name: 'eth_subscribe',
      params: [kindParam, optionsParam],
      handler: ([kind, options], context) => {
        const connection = requireConnection(context);
        validateParams(
          [kindParam, { ...optionsParam, schema: optionsSchemas[kind] }],
          [kind, options],
        );
        const subscriptions = subscriptionsOf(connection);
        if (subscriptions.size >= limits.maxPerConnection) {
          throw new LimitExceededError(
            `too many subscriptions: this connection holds ${limits.maxPerConnection}, the limit per connection (--json-rpc.ws-max-subscriptions)`,
          );
        }
        const id = newFilterId();
        const cancel = () => {
          subscriptions.get(id)?.();
          subscriptions.delete(id);
        };
        const send: Send = (resultJson) => {
          const delivered = connection.notify(
            'eth_subscription',
            `{"subscription":"${id}","result":${resultJson}}`,
          );
          if (!delivered) cancel();
          return delivered;
        };
        subscriptions.set(id, listen(kind, options, send));
        return id;
      },
    }),
    defineMethod<[string]>({
      name: 'eth_unsubscribe',
      params: [
        { name: 'subscriptionId', schema: { type: 'string', description: 'a subscription id' } },
      ],
      handler: ([id], context) => {
        const subscriptions = byConnection.get(requireConnection(context).id);
        const cancel = subscriptions?.get(id.toLowerCase());
        if (cancel === undefined) throw new NotFoundError('subscription not found');
        cancel();
        subscriptions!.delete(id.toLowerCase());
        return true;
      },
    }),
  ];
}
