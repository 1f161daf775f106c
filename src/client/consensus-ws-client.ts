/**
 * A small client of the daemon's CometBFT-compatible event WebSocket (`endpoints.consensusWs`).
 *
 * CometBFT sends every event of a subscription with the id of its `subscribe` request, so the
 * first message carrying that id is the answer (`{}` or an error) and every later one an event.
 */
import { SocketClient } from './socket-client.js';
import { RpcResponseError } from './errors.js';

/** One event as the consensus socket delivers it. */
export interface ConsensusEvent {
  /** The query text of the subscription, as sent. */
  query: string;
  /** CometBFT's type tag, e.g. `tendermint/event/NewBlock`. */
  type: string;
  /** The event's payload (block, header, transaction result, ...). */
  value: unknown;
  /** The flattened event attributes the query matched, e.g. `{"tm.event": ["Tx"]}`. */
  events: Record<string, string[]>;
}

interface Subscription {
  query: string;
  answered: boolean;
  resolve(): void;
  reject(error: Error): void;
  onEvent(event: ConsensusEvent): void;
}

interface CometMessage {
  id?: unknown;
  result?: { query?: unknown; data?: { type?: unknown; value?: unknown }; events?: unknown };
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

function toEvent(result: NonNullable<CometMessage['result']>): ConsensusEvent {
  return {
    query: String(result.query),
    type: String(result.data?.type),
    value: result.data?.value,
    events: (result.events ?? {}) as Record<string, string[]>,
  };
}

function toError(error: NonNullable<CometMessage['error']>): RpcResponseError {
  return new RpcResponseError(
    typeof error.code === 'number' ? error.code : -32603,
    typeof error.message === 'string' ? error.message : 'unknown error',
    error.data,
  );
}

/**
 * Subscribes to consensus events.
 *
 * @example
 * const client = await ConsensusWsClient.connect(info.endpoints.consensusWs);
 * await client.subscribe("tm.event='Tx'", (event) => console.log(event.events['tx.hash']));
 */
export class ConsensusWsClient extends SocketClient {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly idsByQuery = new Map<string, string>();
  private readonly replies = new Map<string, (message: CometMessage) => void>();
  private nextId = 1;

  /** Opens the socket; rejects when it cannot be reached. */
  /** `timeoutMs`: longest wait for the opening handshake (0: none). */
  static async connect(url: string, timeoutMs?: number): Promise<ConsensusWsClient> {
    return new ConsensusWsClient(await SocketClient.open(url, {}, timeoutMs));
  }

  protected onSocketClosed(code: number): void {
    const error = new Error(`consensus WebSocket closed (${code})`);
    for (const subscription of this.subscriptions.values())
      if (!subscription.answered) subscription.reject(error);
    this.subscriptions.clear();
    for (const reply of this.replies.values()) reply({ error: { message: error.message } });
    this.replies.clear();
  }

  /**
   * Subscribes to `query` (CometBFT's query language). Resolves once the server accepted it;
   * rejects with {@link RpcResponseError} carrying the server's reason (e.g. a parse error).
   */
  subscribe(query: string, onEvent: (event: ConsensusEvent) => void): Promise<void> {
    const id = `sub-${this.nextId++}`;
    return new Promise((resolve, reject) => {
      this.subscriptions.set(id, { query, answered: false, resolve, reject, onEvent });
      this.idsByQuery.set(query, id);
      this.socket.send(
        JSON.stringify({ jsonrpc: '2.0', id, method: 'subscribe', params: { query } }),
      );
    });
  }

  /** Ends the subscription to `query`; its events stop at once, before the server answers. */
  async unsubscribe(query: string): Promise<void> {
    const subscriptionId = this.idsByQuery.get(query);
    if (subscriptionId !== undefined) this.subscriptions.delete(subscriptionId);
    this.idsByQuery.delete(query);
    const id = `unsub-${this.nextId++}`;
    const reply = await new Promise<CometMessage>((resolve) => {
      this.replies.set(id, resolve);
      this.socket.send(
        JSON.stringify({ jsonrpc: '2.0', id, method: 'unsubscribe', params: { query } }),
      );
    });
    if (reply.error) throw toError(reply.error);
  }

  protected onMessage(text: string): void {
    let message: CometMessage;
    try {
      message = JSON.parse(text) as CometMessage;
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null || typeof message.id !== 'string') return;
    const reply = this.replies.get(message.id);
    if (reply) {
      this.replies.delete(message.id);
      reply(message);
      return;
    }
    const subscription = this.subscriptions.get(message.id);
    if (!subscription) return;
    if (!subscription.answered) {
      subscription.answered = true;
      if (message.error) {
        this.subscriptions.delete(message.id);
        this.idsByQuery.delete(subscription.query);
        subscription.reject(toError(message.error));
      } else subscription.resolve();
      return;
    }
    if (message.result?.data !== undefined) subscription.onEvent(toEvent(message.result));
  }
}
