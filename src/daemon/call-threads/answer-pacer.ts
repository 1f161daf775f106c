/**
 * Paces the answers of the call threads on the main thread. A thread's messages wait in its
 * port while the main thread is busy, and the port delivers every waiting message in one go,
 * without returning to the event loop in between. When answers are costly to send (an
 * `eth_call` that returns a megabyte is hex-encoded, serialised and written on the main
 * thread), 64 of them delivered together held every other connection for a second. So answers
 * settle at once while the current turn of the event loop has spent less than `sliceMs` on
 * them; past that, the rest wait and settle one per turn, with I/O polled between.
 *
 * The time counted includes what each answer's settlement runs synchronously after it: Node
 * runs the microtasks a message handler queued before it delivers the next message.
 */
import { TurnBudget } from '../time-slice.js';

export class AnswerPacer {
  private readonly waiting: Array<() => void> = [];
  private readonly turn: TurnBudget;
  private draining = false;

  constructor(sliceMs: number, now?: () => number) {
    this.turn = new TurnBudget(sliceMs, now);
  }

  /** Runs `settle` now, or after the answers that wait already, one per event-loop turn. */
  settle(settle: () => void): void {
    if (this.waiting.length === 0 && !this.turn.spent()) {
      settle();
      return;
    }
    this.waiting.push(settle);
    this.drainLater();
  }

  private drainLater(): void {
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => {
      this.draining = false;
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.drainLater();
    });
  }
}
