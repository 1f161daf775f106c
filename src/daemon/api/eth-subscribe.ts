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
 * - A block is formatted once per event, however many subscribers want it.
 * - Like geth, there is no sync to report: a `syncing` subscription receives a single `false`.
 */
import type { StoredBlock } from '../chain/types.js';
import { NotFoundError, UnsupportedError } from '../errors.js';
import type { BlockCommittedEvent, Unsubscribe } from '../events/event-bus.js';
import { logCriteria, logMatcher, type LogFilterObject } from '../events/log-filter.js';
import { newFilterId } from '../events/polling-filters.js';
import { validateParams, type JsonSchema, type ParamSpec } from '../rpc/params.js';
import {
  defineMethod,
  type CallContext,
  type MethodDefinition,
  type RpcConnection,
} from '../rpc/registry.js';
import { logFilterSchema } from './eth-logs.js';
import { formatBlock, formatLog, formatTransaction } from './formatters.js';
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

/** Sends to one subscription; false once the connection can no longer take notifications. */
type Send = (result: unknown) => boolean;

/** Formats each committed block once, however many subscriptions read it. */
function headFormatter(
  services: NodeServices,
): (event: BlockCommittedEvent, full: boolean) => unknown {
  const cache = [new WeakMap<StoredBlock, unknown>(), new WeakMap<StoredBlock, unknown>()];
  return (event, full) => {
    const byBlock = cache[full ? 1 : 0];
    let formatted = byBlock.get(event.block);
    if (formatted === undefined) {
      formatted = formatBlock(event.block, full, services.format);
      byBlock.set(event.block, formatted);
    }
    return formatted;
  };
}

/** The subscription methods; register them in the `eth` namespace. */
export function ethSubscribeMethods(services: NodeServices): MethodDefinition[] {
  const { bus } = services;
  const byConnection = new Map<string, Map<string, Unsubscribe>>();
  const head = headFormatter(services);

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
        return bus.onBlock((event) => send(head(event, full === true)));
      }
      case 'logs': {
        const matches = logMatcher(logCriteria((options ?? {}) as LogFilterObject));
        return bus.onBlock((event) => {
          for (const receipt of event.receipts) {
            for (const log of receipt.logs) {
              if (matches(log) && !send(formatLog(log))) return;
            }
          }
        });
      }
      case 'newPendingTransactions': {
        const full = options === true;
        return bus.onPendingTx((pooled) =>
          send(full ? formatTransaction(pooled.tx, pooled.sender) : pooled.hashHex),
        );
      }
      case 'syncing': {
        // After the reply carrying the id, which the dispatcher sends once this handler returns.
        const timer = setImmediate(() => send(false));
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
        const id = newFilterId();
        const cancel = () => {
          subscriptions.get(id)?.();
          subscriptions.delete(id);
        };
        const send: Send = (result) => {
          const delivered = connection.notify('eth_subscription', { subscription: id, result });
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
