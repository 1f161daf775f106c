/**
 * The incoming messages of one WebSocket connection, handled in slices of the main thread.
 *
 * A client can send thousands of requests at once (50 000 `eth_subscribe` in one burst were
 * measured): read in one go, they would be handled one after another in a single turn of the
 * event loop, and block production and every other client would wait for all of them. So a
 * connection's messages are handled as they come only while the current turn has spent less
 * than `sliceMs` on them; the rest wait, in order, for later turns, and the socket is paused
 * meanwhile so that the client's surplus stays in the kernel's buffers (and, once those fill,
 * TCP slows the client down) instead of in the node's memory.
 */
import type { WebSocket } from 'ws';

/** Main-thread time one connection's messages may take per turn of the event loop. */
export const WS_SLICE_MS = 5;

export class WsInbox {
  private readonly waiting: string[] = [];
  /** When the current slice began; undefined between turns. */
  private sliceStart: number | undefined;
  private draining = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly handle: (text: string) => void,
    private readonly sliceMs = WS_SLICE_MS,
  ) {}

  push(text: string): void {
    if (this.waiting.length === 0 && !this.draining && this.withinSlice()) {
      this.handle(text);
      return;
    }
    this.waiting.push(text);
    if (!this.socket.isPaused) this.socket.pause();
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drain());
    }
  }

  /** Whether the current turn may still handle a message; starts a slice if none is running. */
  private withinSlice(): boolean {
    const now = performance.now();
    if (this.sliceStart === undefined) {
      this.sliceStart = now;
      setImmediate(() => (this.sliceStart = undefined));
    }
    return now - this.sliceStart < this.sliceMs;
  }

  private drain(): void {
    // Nobody is left to answer: what a closed connection sent is dropped.
    if (this.socket.readyState !== this.socket.OPEN) this.waiting.length = 0;
    const start = performance.now();
    while (this.waiting.length > 0 && performance.now() - start < this.sliceMs) {
      this.handle(this.waiting.shift()!);
    }
    if (this.waiting.length > 0) {
      setImmediate(() => this.drain());
      return;
    }
    this.draining = false;
    if (this.socket.readyState === this.socket.OPEN) this.socket.resume();
  }
}
