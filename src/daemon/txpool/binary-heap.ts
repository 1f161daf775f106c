/** A binary min-heap under a caller-given order: `push` and `pop` are O(log n). */
export class BinaryHeap<T> {
  private readonly items: T[] = [];

  /** @param before - true when `a` must come out before `b`. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(items[index], items[parent])) break;
      [items[index], items[parent]] = [items[parent], items[index]];
      index = parent;
    }
  }

  /** Removes and returns the first item, or `undefined` when empty. */
  pop(): T | undefined {
    const items = this.items;
    const first = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.siftDown(0);
    }
    return first;
  }

  private siftDown(start: number): void {
    const items = this.items;
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let first = index;
      if (left < items.length && this.before(items[left], items[first])) first = left;
      if (right < items.length && this.before(items[right], items[first])) first = right;
      if (first === index) return;
      [items[index], items[first]] = [items[first], items[index]];
      index = first;
    }
  }
}
