/**
 * The answers a call thread holds back to send to the main thread together: one message, and
 * one wake-up of the main thread, for many calls. The thread cannot send anything while a call
 * runs, so what it holds when it begins a call waits for that call to end; held answers
 * therefore go before the thread begins another client's call (an answer never waits for
 * another client's call, however slow), or once the first of them has waited `waitMs`; and
 * all of them at the end of the batch.
 */
export class AnswerBatch<T> {
  private held: T[] = [];
  /** Whose answers are held: all of one client, the caller of the first. */
  private caller: string | undefined;
  private firstAt = 0;

  constructor(
    private readonly waitMs: number,
    private readonly send: (answers: T[]) => void,
  ) {}

  /** Before the thread begins a call of `caller`, at `now` (ms). */
  beforeCall(caller: string, now: number): void {
    if (this.held.length > 0 && (caller !== this.caller || now - this.firstAt >= this.waitMs)) {
      this.flush();
    }
  }

  /** Holds the answer of a call of `caller` that ended at `now` (ms). */
  add(answer: T, caller: string, now: number): void {
    if (this.held.length === 0) {
      this.caller = caller;
      this.firstAt = now;
    }
    this.held.push(answer);
  }

  /** Sends what is held, if anything. */
  flush(): void {
    if (this.held.length === 0) return;
    const answers = this.held;
    this.held = [];
    this.send(answers);
  }
}
