/**
 * JSON-RPC over WebSocket: calls matched to answers by id, and subscription notifications
 * delivered to the listener registered for their subscription id.
 */
import type WebSocket from 'ws';
import { SocketClient } from './socket-client.js';
import { unwrapResponse, type JsonRpcResponse } from './json-rpc-envelope.js';

type Pending = { resolve(value: JsonRpcResponse): void; reject(error: Error): void };

export interface WsRpcClientOptions {
  token?: string;
  /** Longest wait for the opening handshake, in ms (0: none). */
  timeoutMs?: number;
}

export interface Notification {
  method: string;
  params: unknown;
}

export class WsRpcClient extends SocketClient {
  private readonly pending = new Map<number, Pending>();
  private readonly notificationListeners = new Set<(notification: Notification) => void>();
  private nextId = 1;
  private closeInfo: { code: number; reason: string } | undefined;

  static async connect(url: string, options: WsRpcClientOptions = {}): Promise<WsRpcClient> {
    const headers: Record<string, string> = options.token
      ? { authorization: `Bearer ${options.token}` }
      : {};
    return new WsRpcClient(await SocketClient.open(url, headers, options.timeoutMs));
  }

  protected onSocketClosed(code: number, reason: string): void {
    this.closeInfo = { code, reason };
    const error = new Error(`WebSocket closed (${code}${reason.length ? `: ${reason}` : ''})`);
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  /** Why the server closed the connection, once it has. */
  get closed(): { code: number; reason: string } | undefined {
    return this.closeInfo;
  }

  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const response = await this.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, method, params }), id);
    return unwrapResponse<T>(response);
  }

  /** Sends any text; resolves with the answer carrying `expectId`. */
  sendRaw(text: string, expectId: number): Promise<JsonRpcResponse> {
    return new Promise((resolve, reject) => {
      this.pending.set(expectId, { resolve, reject });
      this.socket.send(text, (error) => {
        if (error) {
          this.pending.delete(expectId);
          reject(error);
        }
      });
    });
  }

  /** Sends text and resolves with the next message that is not a notification (batches, errors). */
  sendAndReceive(text: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(data.toString()) as Record<string, unknown>;
        if (!Array.isArray(message) && message.method !== undefined && message.id === undefined)
          return;
        this.socket.off('message', onMessage);
        resolve(message);
      };
      this.socket.on('message', onMessage);
      this.socket.send(text, (error) => error && reject(error));
    });
  }

  onNotification(listener: (notification: Notification) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  protected onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (Array.isArray(message) || typeof message !== 'object' || message === null) return;
    const record = message as Record<string, unknown>;
    if (typeof record.id === 'number' && this.pending.has(record.id)) {
      const waiter = this.pending.get(record.id) as Pending;
      this.pending.delete(record.id);
      waiter.resolve(record as unknown as JsonRpcResponse);
    } else if (typeof record.method === 'string' && record.id === undefined) {
      for (const listener of this.notificationListeners)
        listener({ method: record.method, params: record.params });
    }
  }
}
