/**
 * JSON-RPC over WebSocket: calls matched to answers by id, and subscription notifications
 * delivered to the listener registered for their subscription id.
 */
import WebSocket from 'ws';
import { unwrapResponse, type JsonRpcResponse } from './json-rpc-envelope.js';

type Pending = { resolve(value: JsonRpcResponse): void; reject(error: Error): void };

export interface WsRpcClientOptions {
  token?: string;
}

export interface Notification {
  method: string;
  params: unknown;
}

export class WsRpcClient {
  private readonly pending = new Map<number, Pending>();
  private readonly notificationListeners = new Set<(notification: Notification) => void>();
  private readonly closeListeners = new Set<(code: number, reason: string) => void>();
  private nextId = 1;
  private closeInfo: { code: number; reason: string } | undefined;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => this.onMessage(data.toString()));
    socket.on('close', (code, reason) => {
      this.closeInfo = { code, reason: reason.toString() };
      const error = new Error(
        `WebSocket closed (${code}${reason.length ? `: ${reason.toString()}` : ''})`,
      );
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
      for (const listener of this.closeListeners) listener(code, reason.toString());
    });
  }

  static connect(url: string, options: WsRpcClientOptions = {}): Promise<WsRpcClient> {
    const socket = new WebSocket(url, {
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsRpcClient(socket)));
      socket.once('error', reject);
    });
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

  /** Calls `listener` once the connection has closed, whichever side closed it. */
  onClose(listener: (code: number, reason: string) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }

  private onMessage(text: string): void {
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
