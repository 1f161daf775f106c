/**
 * What a WebSocket server sends to one client, with the two kinds of output bounded apart:
 *
 * - replies, which the client asked for, are always sent, however large (up to the message
 *   limits of decisions §11); while more than the bound of them waits unflushed, the client's
 *   further messages are not read, so a client that sends requests without reading the answers
 *   holds about one answer;
 * - notifications, which the server pushes, are sent only while the backlog other than replies
 *   stays under the bound; past it the client is a slow consumer and is closed.
 *
 * Counting replies apart is what lets a client that reads receive a reply larger than the
 * bound and still get notifications meanwhile: a bound on the whole backlog closed it.
 */
import type { WebSocket } from 'ws';

export class WsOutbox {
  /** Bytes of replies handed to the socket and not yet flushed to the kernel. */
  private unflushedReplies = 0;
  private paused = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly maxBacklogBytes: number,
  ) {}

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** Sends an answer to the client's own request. */
  reply(text: string): void {
    if (!this.open) return;
    const bytes = Buffer.byteLength(text);
    this.unflushedReplies += bytes;
    this.socket.send(text, () => {
      this.unflushedReplies -= bytes;
      if (this.paused && this.unflushedReplies <= this.maxBacklogBytes) {
        this.paused = false;
        this.socket.resume();
      }
    });
    if (!this.paused && this.unflushedReplies > this.maxBacklogBytes) {
      this.paused = true;
      this.socket.pause();
    }
  }

  /**
   * Sends a message the server pushes; false, sending nothing, when the client has left more
   * than the bound of them unread (the caller then closes it as a slow consumer).
   */
  notify(text: string): boolean {
    if (!this.open) return false;
    if (this.socket.bufferedAmount - this.unflushedReplies > this.maxBacklogBytes) return false;
    this.socket.send(text);
    return true;
  }
}
