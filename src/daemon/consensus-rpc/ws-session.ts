/**
 * One client of the consensus WebSocket: its subscriptions and its outgoing messages.
 *
 * Delivery never waits for the socket. A client that does not read lets `bufferedAmount` grow;
 * once it would pass the backlog bound the session sends nothing more, drops its
 * subscriptions and closes with 1008 and a reason, so a slow or dead subscriber costs at most
 * the bound in memory and never delays block production or other clients. Its requests take
 * a bounded slice of the main thread per turn of the event loop (`transport/ws-inbox.ts`).
 */
import type { WebSocket } from 'ws';
import { InvalidInputError } from '../errors.js';
import type { Query } from '../events/query/index.js';
import type { Logger } from '../logger.js';
import { WsInbox } from '../transport/ws-inbox.js';
import type { PublishedEvent } from './block-events.js';
import type { RpcId } from './comet-envelope.js';
import { handleRequestText } from './request-handler.js';
import { RouteArgs } from './route-args.js';
import { callRoute } from './routes.js';
import type { Route, RouteContext } from './routes.js';
import { ClientSubscriptions } from './subscriptions.js';

/** Close code for a client that fell too far behind (1008: policy violation). */
export const CLOSE_SLOW_CONSUMER = 1008;

export interface WsSessionOptions {
  maxSubscriptions: number;
  maxBacklogBytes: number;
  routes: ReadonlyMap<string, Route>;
  context: RouteContext;
  logger: Logger;
}

function queryParam(params: unknown): string {
  const query = RouteArgs.fromJsonParams(params, ['query']).string('query');
  if (query === undefined) throw new InvalidInputError('query is required');
  return query;
}

export class ConsensusWsSession {
  private readonly subscriptions: ClientSubscriptions;
  private dropped = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: WsSessionOptions,
  ) {
    this.subscriptions = new ClientSubscriptions(options.maxSubscriptions);
    const inbox = new WsInbox(socket, (text) => {
      const reply = handleRequestText(
        text,
        (method, params, id) => this.call(method, params, id),
        (error) => options.logger.error('consensus RPC call failed', { error: String(error) }),
      );
      if (reply !== undefined) this.send(reply);
    });
    socket.on('message', (data, isBinary) => {
      inbox.push(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString());
    });
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
        const message = `{"jsonrpc":"2.0","id":${JSON.stringify(subscription.id)},"result":{"query":${JSON.stringify(subscription.queryText)},${event.payload()}}}`;
        if (!this.send(message)) return;
      }
    }
  }

  private call(method: string, params: unknown, id: RpcId): unknown {
    switch (method) {
      case 'subscribe': {
        const queryText = queryParam(params);
        this.subscriptions.add({ id, queryText, query: this.parse(queryText) });
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

  private send(text: string): boolean {
    if (this.dropped || this.socket.readyState !== this.socket.OPEN) return false;
    if (this.socket.bufferedAmount + Buffer.byteLength(text) > this.options.maxBacklogBytes) {
      this.dropped = true;
      this.subscriptions.clear();
      this.socket.close(
        CLOSE_SLOW_CONSUMER,
        `slow consumer: more than ${this.options.maxBacklogBytes} bytes of events unread`,
      );
      this.options.logger.warn('consensus WebSocket client dropped: slow consumer', {
        maxBacklogBytes: this.options.maxBacklogBytes,
      });
      return false;
    }
    this.socket.send(text);
    return true;
  }
}
