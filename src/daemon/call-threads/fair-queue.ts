/**
 * A queue that takes turns between the callers it holds items for, so that one caller's many
 * items never stand between another caller and the next free place.
 *
 * Each caller has a queue of its own; `shift` takes the first item of the caller whose turn it
 * is and sends that caller to the back of the turns. A caller that arrives with nothing queued
 * goes to the front: it has waited least of all for nothing, and a client that sends one call at
 * a time then gets it run next, however long the queue of a client that sent many.
 */
export class FairQueue<T> {
  private readonly byCaller = new Map<string, T[]>();
  /** Callers with queued items, the one whose turn it is first. */
  private turns: string[] = [];
  private count = 0;

  /** Items queued, all callers together. */
  get size(): number {
    return this.count;
  }

  /** Items queued by `caller`. */
  sizeOf(caller: string): number {
    return this.byCaller.get(caller)?.length ?? 0;
  }

  push(caller: string, item: T): void {
    const items = this.byCaller.get(caller);
    if (items === undefined) {
      this.byCaller.set(caller, [item]);
      this.turns.unshift(caller);
    } else {
      items.push(item);
    }
    this.count++;
  }

  /** Puts an item back at the front of its caller's queue, and that caller first in turn. */
  pushFront(caller: string, item: T): void {
    const items = this.byCaller.get(caller);
    if (items === undefined) {
      this.byCaller.set(caller, [item]);
    } else {
      items.unshift(item);
      this.turns = this.turns.filter((each) => each !== caller);
    }
    this.turns.unshift(caller);
    this.count++;
  }

  /** The next item in turn, or undefined when nothing is queued. */
  shift(): T | undefined {
    const caller = this.turns.shift();
    if (caller === undefined) return undefined;
    const items = this.byCaller.get(caller)!;
    const item = items.shift()!;
    if (items.length === 0) this.byCaller.delete(caller);
    else this.turns.push(caller);
    this.count--;
    return item;
  }
}
