/**
 * What the daemon's WebSocket clients share: opening the socket, telling listeners when it
 * closed (whichever side closed it) and closing it.
 */
import WebSocket from 'ws';
import { RequestTimeoutError } from './errors.js';
import { connectionFailure, DEFAULT_REQUEST_TIMEOUT_MS } from './http-transport.js';
import { tlsTrust } from './tls-trust.js';

export type CloseListener = (code: number, reason: string) => void;

export abstract class SocketClient {
  private readonly closeListeners = new Set<CloseListener>();

  protected constructor(protected readonly socket: WebSocket) {
    socket.on('message', (data) => this.onMessage(data.toString()));
    socket.on('close', (code, reason) => {
      this.onSocketClosed(code, reason.toString());
      for (const listener of this.closeListeners) listener(code, reason.toString());
    });
  }

  /**
   * Opens a socket; rejects when it cannot be reached, or when its opening handshake takes
   * longer than `timeoutMs` (0: no limit), as a node that stopped answering would make it.
   */
  protected static open(
    url: string,
    headers: Record<string, string> = {},
    timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
  ): Promise<WebSocket> {
    const socket = new WebSocket(url, {
      headers,
      ...tlsTrust(),
      ...(timeoutMs > 0 ? { handshakeTimeout: timeoutMs } : {}),
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(socket));
      socket.once('error', (error) =>
        reject(
          /handshake has timed out/.test(error.message)
            ? new RequestTimeoutError(url, timeoutMs)
            : connectionFailure(url, error),
        ),
      );
    });
  }

  /** Calls `listener` once the connection has closed, whichever side closed it. */
  onClose(listener: CloseListener): () => void {
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

  protected abstract onMessage(text: string): void;

  /** Fails whatever is still waiting for an answer. */
  protected abstract onSocketClosed(code: number, reason: string): void;
}
