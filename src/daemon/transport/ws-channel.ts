/**
 * One WebSocket client's messages in and out, with what the client can make the server hold
 * bounded:
 *
 * - requests: at most `MAX_IN_FLIGHT` are handled at once, and fewer when the client's replies
 *   are large: a request starts only while the replies sent and not flushed, plus one reply as
 *   large as the channel's recent ones for each request running, fit in the backlog bound.
 *   Otherwise further messages wait in order and the socket is not read, so a client that sends
 *   requests without reading the answers holds about the bound of them, not one per request.
 *   Counting only the unflushed bytes, 64 requests for 2 MiB answers held 50 MB for a 16 MiB
 *   bound (16 running past it), and the garbage of making them took the daemon 120 MB up;
 * - replies, which the client asked for, are always sent, however large (up to the message
 *   limits of decisions §11);
 * - notifications, which the server pushes, are sent only while the backlog other than replies
 *   stays under the bound; past it the client is a slow consumer and the caller closes it.
 *
 * - main-thread time: a client can send thousands of requests at once (50 000 `eth_subscribe`
 *   in one burst were measured); its messages are handled only while the current turn of the
 *   event loop has spent less than its budget on WebSocket messages, and the rest wait, in
 *   order and with the socket paused, for later turns, so block production and other clients
 *   are never held for a whole burst. The budget is one for all channels of the thread: with
 *   one per channel, twenty clients sending large requests together held the thread for twenty
 *   slices in one turn (100 ms measured by the benchmark's stall probe).
 *
 * Counting replies apart is what lets a client that reads receive a reply larger than the
 * bound and still get notifications meanwhile: a bound on the whole backlog closed it.
 */
import type { WebSocket } from 'ws';
import { replyBytes, replyParts, type Reply } from '../rpc/reply.js';
import { TurnBudget } from '../time-slice.js';

/** Requests of one client handled at once (a call thread's queue serves them all anyway). */
const MAX_IN_FLIGHT = 16;

/** Main-thread time all connections' messages may take per turn of the event loop. */
export const WS_SLICE_MS = 5;

/** The turn budget every channel shares unless given its own. */
const SHARED_TURN = new TurnBudget(WS_SLICE_MS);

/**
 * Answers one message: the reply text (or its pieces, sent as the fragments of one message), or
 * undefined when none is due.
 */
export type MessageHandler = (text: string) => Reply | undefined | Promise<Reply | undefined>;

export class WsChannel {
  /** Bytes of replies handed to the socket and not yet flushed to the kernel. */
  private unflushedReplies = 0;
  /** Bytes of the largest recent reply, halved at each smaller one: what a request may add. */
  private replyEstimate = 0;
  private inFlight = 0;
  private readonly waiting: string[] = [];
  private paused = false;
  private nextSliceScheduled = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly maxBacklogBytes: number,
    private readonly handle: MessageHandler,
    private readonly onHandlerError: (error: unknown) => void,
    private readonly turn: TurnBudget = SHARED_TURN,
  ) {
    socket.on('message', (data, isBinary) => {
      this.waiting.push(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString());
      this.pump();
    });
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
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

  /** Starts the waiting messages the bounds allow; reads from the socket only when none wait. */
  private pump(): void {
    while (
      this.waiting.length > 0 &&
      this.inFlight < MAX_IN_FLIGHT &&
      this.unflushedReplies + this.inFlight * this.replyEstimate <= this.maxBacklogBytes &&
      this.open
    ) {
      if (this.turn.spent()) {
        this.scheduleNextSlice();
        break;
      }
      this.run(this.waiting.shift() as string);
    }
    // Nobody is left to answer: what a closed connection sent is dropped.
    if (!this.open) this.waiting.length = 0;
    const hold = this.waiting.length > 0;
    if (hold !== this.paused) {
      this.paused = hold;
      if (hold) this.socket.pause();
      else this.socket.resume();
    }
  }

  private scheduleNextSlice(): void {
    if (this.nextSliceScheduled) return;
    this.nextSliceScheduled = true;
    setImmediate(() => {
      this.nextSliceScheduled = false;
      this.pump();
    });
  }

  private run(text: string): void {
    let reply: ReturnType<MessageHandler>;
    try {
      reply = this.handle(text);
    } catch (error) {
      this.onHandlerError(error);
      return;
    }
    if (!(reply instanceof Promise)) {
      this.reply(reply);
      return;
    }
    this.inFlight++;
    reply
      .then(
        (settled) => this.reply(settled),
        (error: unknown) => this.onHandlerError(error),
      )
      .finally(() => {
        this.inFlight--;
        this.pump();
      });
  }

  private reply(reply: Reply | undefined): void {
    if (reply === undefined || !this.open) return;
    const bytes = replyBytes(reply);
    this.replyEstimate = Math.max(bytes, this.replyEstimate / 2);
    this.unflushedReplies += bytes;
    const sent = () => {
      this.unflushedReplies -= bytes;
      if (this.paused) this.pump();
    };
    if (typeof reply === 'string') {
      this.socket.send(reply, sent);
      return;
    }
    // Parts, not pieces: a frame per log would be thousands of frames.
    const parts = replyParts(reply);
    let part = parts.next();
    while (!part.done) {
      const text = part.value;
      part = parts.next();
      this.socket.send(text, { fin: part.done === true }, part.done ? sent : undefined);
    }
  }
}
