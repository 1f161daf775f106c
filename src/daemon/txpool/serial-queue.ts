/**
 * Runs async tasks one at a time, in call order. The pool's admissions and block updates read
 * account state across awaits; serialising them means each one sees the pool exactly as the
 * previous one left it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it has settled; resolves with its result. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
