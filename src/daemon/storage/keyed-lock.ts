/**
 * Runs work on one key (a chunk id) one piece at a time, in the order it was asked for, while
 * work on other keys runs freely. The storage layer takes a chunk's lock for everything that
 * decides from the index whether a replica file should exist and then creates or removes it:
 * without it a removal could check "no upload uses this chunk", an upload could then find the
 * chunk unlisted and write it, and the removal would delete the upload's fresh replica.
 */
interface KeyQueue {
  /** Settles when the last piece of work asked for on the key has finished. */
  tail: Promise<void>;
  /** Pieces running or waiting. */
  count: number;
}

export class KeyedLock {
  private readonly queues = new Map<string, KeyQueue>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const queue = this.queues.get(key) ?? { tail: Promise.resolve(), count: 0 };
    this.queues.set(key, queue);
    const previous = queue.tail;
    let release!: () => void;
    // Resolved only after `previous`, since this piece starts only then.
    queue.tail = new Promise<void>((resolve) => (release = resolve));
    queue.count += 1;
    try {
      await previous;
      return await work();
    } finally {
      release();
      queue.count -= 1;
      if (queue.count === 0) this.queues.delete(key);
    }
  }

  /** Pieces of work on `key` running or waiting. */
  queued(key: string): number {
    return this.queues.get(key)?.count ?? 0;
  }
}
