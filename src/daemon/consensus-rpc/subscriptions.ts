/**
 * One WebSocket client's subscriptions, keyed like CometBFT by the query's canonical text, so
 * `tm.event='Tx'` and `tm.event = 'Tx'` are the same subscription.
 */
import { ConflictError, LimitExceededError, NotFoundError } from '../../shared/errors.js';
import type { EventSet, Query } from '../events/query/index.js';

/** One `subscribe` of a client. */
export interface Subscription {
  /** Id of the `subscribe` request as it wrote it (JSON text); every event carries it. */
  idText: string;
  /** The query as the client wrote it, echoed in `result.query`. */
  queryText: string;
  query: Query;
}

/** The subscriptions of one client, at most `limit` of them. */
export class ClientSubscriptions {
  private readonly byQuery = new Map<string, Subscription>();

  constructor(private readonly limit: number) {}

  /** @throws {ConflictError} when the query is already subscribed; {@link LimitExceededError} past the limit. */
  add(subscription: Subscription): void {
    const key = subscription.query.toString();
    if (this.byQuery.has(key)) throw new ConflictError('already subscribed');
    if (this.byQuery.size >= this.limit) {
      throw new LimitExceededError(
        `max_subscriptions_per_client ${this.limit} reached (--rpc.max-subscriptions-per-client)`,
      );
    }
    this.byQuery.set(key, subscription);
  }

  /** @throws {NotFoundError} when there is no subscription with this query. */
  remove(query: Query): void {
    if (!this.byQuery.delete(query.toString())) throw new NotFoundError('subscription not found');
  }

  /** @throws {NotFoundError} when there is no subscription at all. */
  removeAll(): void {
    if (this.byQuery.size === 0) throw new NotFoundError('subscription not found');
    this.byQuery.clear();
  }

  clear(): void {
    this.byQuery.clear();
  }

  get size(): number {
    return this.byQuery.size;
  }

  /**
   * Subscriptions whose query matches `events`, in subscription order. `known` holds the
   * outcomes of queries already matched against the same events (by canonical text, shared
   * between clients); outcomes computed here are added to it.
   */
  matching(events: EventSet, known = new Map<string, boolean>()): Subscription[] {
    const matched: Subscription[] = [];
    for (const [key, subscription] of this.byQuery) {
      let matches = known.get(key);
      if (matches === undefined) {
        matches = subscription.query.matches(events);
        known.set(key, matches);
      }
      if (matches) matched.push(subscription);
    }
    return matched;
  }
}
