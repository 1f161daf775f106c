/**
 * Time slices for long work on the main thread: block production, a burst of admissions, the
 * calls of a large JSON-RPC batch.
 *
 * Why: executing, flushing and assembling a block of a thousand transactions is about a
 * second of JavaScript on the thread that also answers every JSON-RPC request, and the
 * admissions of a burst, once their senders come back from the recovery thread, ran back to
 * back for hundreds of milliseconds. Run as one stretch, each held `eth_blockNumber` answers
 * for that long. Cut into slices of a few milliseconds, with the event loop's I/O served
 * between them, a request waits about one slice; the work is the same work: the slices only
 * decide when its next step runs, never what it does or in which order.
 *
 * One slicer serves the whole main thread (`node.ts`), so the budget is the thread's, whoever
 * spends it.
 */
import { performance } from 'node:perf_hooks';

/**
 * A point where long work may let the event loop run: undefined to carry on at once, or a
 * promise to await first.
 */
export type Pause = () => Promise<void> | undefined;

/**
 * Longest slice of long work between two turns of the event loop, in ms. Every turn costs some
 * tens of µs and whatever I/O is waiting; 4 ms keeps that overhead to a few percent while a
 * request waits little longer than anvil's answers take (3–10 ms).
 */
export const MAIN_THREAD_SLICE_MS = 4;

/**
 * How long the current turn of the event loop has worked on something, counted from the first
 * check of the turn: a fresh turn starts with the whole budget.
 */
export class TurnBudget {
  private startedAt: number | undefined;

  constructor(
    private readonly budgetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether the turn has spent the budget; the first call of a turn starts counting. */
  spent(): boolean {
    const now = this.now();
    if (this.startedAt === undefined) {
      this.startedAt = now;
      setImmediate(() => this.restart());
      return false;
    }
    return now - this.startedAt >= this.budgetMs;
  }

  /** Counts afresh from the next check. */
  restart(): void {
    this.startedAt = undefined;
  }
}

/**
 * The main thread's time slices. Work that may run long asks `pause()` between its steps; once
 * the work of the current turn of the event loop has run for the budget (counted from the first
 * `pause()` of the turn), it waits for a later turn (`setImmediate`, so the I/O that is waiting
 * is served first), as `AnswerPacer` does for the call threads' answers. All who wait share
 * that turn, resumed in the order they came, and one resumed after the slice is spent waits
 * again at the front of the line: each turn runs about one slice of work in all, not one per
 * waiter, and no work starves another.
 */
export class TimeSlicer {
  private readonly budget: TurnBudget;
  /** Resumed first at the next turn: the steps of `pauseWhenSpent`. */
  private first: Array<() => void> = [];
  /** Resumed next: those the previous turn's slice had no room for. */
  private deferred: Array<() => void> = [];
  private waiting: Array<() => void> = [];
  private turnScheduled = false;
  /** Whether the last turn resumed only the steps of `pauseWhenSpent`. */
  private firstHadTurn = false;

  constructor(budgetMs: number, now?: () => number) {
    this.budget = new TurnBudget(budgetMs, now);
  }

  /**
   * Undefined while the current slice is within its budget and nobody waits; otherwise a promise
   * that resolves in a later turn, in a slice with room left.
   */
  readonly pause: Pause = () => {
    const waiters = this.first.length + this.waiting.length + this.deferred.length;
    if (waiters === 0 && !this.budget.spent()) return undefined;
    return this.waitForRoom();
  };

  /**
   * For work that is a queue of its own, ordered already, whose steps are short and finish what
   * others began (the pool's admissions): undefined while the current slice has room, even when
   * others wait; otherwise a promise resolved in a later turn that these steps have to
   * themselves, every other turn while others wait too (see `turn`). Behind the others, each
   * step waited for every other waiter: a burst's batches of raw transactions, decoding in
   * slices, let the pool admit almost nothing until all of them were decoded (4 000 transfers:
   * 40 pooled in the first 0.8 s, the rest in the 0.4 s after), so the block built meanwhile
   * found the pool nearly empty and the burst took a block longer.
   */
  readonly pauseWhenSpent: Pause = () => (this.budget.spent() ? this.waitFirst() : undefined);

  private async waitFirst(): Promise<void> {
    do {
      await new Promise<void>((resolve) => this.enqueue(this.first, resolve));
    } while (this.budget.spent());
  }

  private async waitForRoom(): Promise<void> {
    await new Promise<void>((resolve) => this.enqueue(this.waiting, resolve));
    while (this.budget.spent()) {
      await new Promise<void>((resolve) => this.enqueue(this.deferred, resolve));
    }
  }

  private enqueue(line: Array<() => void>, resume: () => void): void {
    line.push(resume);
    this.scheduleTurn();
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(this.turn);
  }

  /**
   * Resumes the steps of `pauseWhenSpent` in a turn of their own, and everyone else in the next:
   * resumed together, every await of a queue's step let the others' synchronous work run first,
   * and the queue advanced one step per turn (4 000 admissions: 35 done while 3 700
   * transactions were decoded).
   */
  private readonly turn = (): void => {
    this.turnScheduled = false;
    this.budget.restart();
    let resumed: Array<() => void>;
    if (this.first.length > 0 && !this.firstHadTurn) {
      this.firstHadTurn = true;
      resumed = this.first;
      this.first = [];
      if (this.deferred.length + this.waiting.length > 0) this.scheduleTurn();
    } else {
      this.firstHadTurn = false;
      resumed = [...this.first, ...this.deferred, ...this.waiting];
      this.first = [];
      this.deferred = [];
      this.waiting = [];
    }
    for (const resume of resumed) resume();
  };
}
