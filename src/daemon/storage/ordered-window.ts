/**
 * A bounded window of work in flight, answered in the order it was started: the storage layer
 * writes the next chunks of an upload while earlier ones sync, and reads the next chunks of a
 * download while earlier ones are sent, holding at most `limit` chunks either way.
 */
export class OrderedWindow<T> {
  private readonly queue: Promise<T>[] = [];

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.queue.length;
  }

  full(): boolean {
    return this.queue.length >= this.limit;
  }

  /** Adds started work. Its failure is reported by `shift`, never as an unhandled rejection. */
  push(work: Promise<T>): void {
    work.catch(() => undefined);
    this.queue.push(work);
  }

  /** The oldest work's result (or failure); call only when `size > 0`. */
  shift(): Promise<T> {
    return this.queue.shift() as Promise<T>;
  }

  /** Waits until everything in the window has settled, whatever the outcome. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.queue.splice(0));
  }
}
