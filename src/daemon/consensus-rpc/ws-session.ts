/**
 * One client of the consensus WebSocket: its subscriptions and its outgoing messages.
 *
 * Delivery never waits for the socket. A client that does not read lets its backlog of events
 * grow; once it passes the bound the session sends nothing more, drops its subscriptions and
 * closes with 1008 and a reason, so a slow or dead subscriber costs at most the bound in memory
 * and never delays block production or other clients. Replies to the client's own requests are
 * bounded apart (see `WsChannel`), so a large reply to a client that reads is delivered.
 * Its requests take a bounded slice of the main thread per turn of the event loop.
 */
import type { WebSocket } from 'ws';
import { InvalidInputError } from '../../shared/errors.js';
import type { Query } from '../events/query/index.js';
import type { Logger } from '../logger.js';
import type { PublishedEvent } from './block-events.js';
import { WsChannel } from '../transport/ws-channel.js';
import { handleRequestText } from './request-handler.js';
import type { RequestLimits } from './request-handler.js';
import { RouteArgs } from './route-args.js';
import { callRoute } from './routes.js';
import type { Route, RouteContext } from './routes.js';
import { ClientSubscriptions } from './subscriptions.js';

/** Close code for a client that fell too far behind (1008: policy violation). */
export const CLOSE_SLOW_CONSUMER = 1008;

export interface WsSessionOptions {
  maxSubscriptions: number;
  maxBacklogBytes: number;
  limits: RequestLimits;
  routes: ReadonlyMap<string, Route>;
  context: RouteContext;
  logger: Logger;
  /** Told when this client is dropped as a slow consumer. */
  onSlowConsumer?: () => void;
}

function queryParam(params: unknown): string {
  const query = RouteArgs.fromJsonParams(params, ['query']).string('query');
  if (query === undefined) throw new InvalidInputError('query is required');
  return query;
}

export class ConsensusWsSession {
  private readonly subscriptions: ClientSubscriptions;
  private dropped = false;
  private readonly channel: WsChannel;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: WsSessionOptions,
  ) {
    this.subscriptions = new ClientSubscriptions(options.maxSubscriptions);
    const onInternal = (error: unknown) =>
      options.logger.error('consensus RPC call failed', { error: String(error) });
    this.channel = new WsChannel(
      socket,
      options.maxBacklogBytes,
      (text) =>
        handleRequestText(
          text,
          options.limits,
          (method, params, id) => this.call(method, params, id),
          onInternal,
        ),
      onInternal,
    );
    socket.on('close', () => this.subscriptions.clear());
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** Sends each event to every subscription whose query matches it. */
  deliver(events: readonly PublishedEvent[]): void {
    if (this.subscriptions.size === 0) return;
    for (const event of events) {
      for (const subscription of this.subscriptions.matching(event.events, event.matched)) {
        const message = `{"jsonrpc":"2.0","id":${subscription.idText},"result":{"query":${JSON.stringify(subscription.queryText)},${event.payload()}}}`;
        if (!this.sendEvent(message)) return;
      }
    }
  }

  private call(method: string, params: unknown, idText: string): unknown {
    switch (method) {
      case 'subscribe': {
        const queryText = queryParam(params);
        this.subscriptions.add({ idText, queryText, query: this.parse(queryText) });
        return {};
      }
      case 'unsubscribe':
        this.subscriptions.remove(this.parse(queryParam(params)));
        return {};
      case 'unsubscribe_all':
        this.subscriptions.removeAll();
        return {};
      default:
        return callRoute(this.options.routes, method, params, this.options.context);
    }
  }

  private parse(queryText: string): Query {
    return this.options.context.parseQuery(queryText);
  }

  private sendEvent(text: string): boolean {
    if (this.dropped || !this.channel.open) return false;
    if (!this.channel.notify(text)) {
      this.dropped = true;
      this.subscriptions.clear();
      this.socket.close(
        CLOSE_SLOW_CONSUMER,
        `slow consumer: more than ${this.options.maxBacklogBytes} bytes of events unread`,
      );
      this.options.logger.warn('consensus WebSocket client dropped: slow consumer', {
        maxBacklogBytes: this.options.maxBacklogBytes,
      });
      this.options.onSlowConsumer?.();
      return false;
    }
    return true;
  }
}
