/**
 * A bounded map that evicts the least recently used entries (Map keeps insertion order).
 *
 * The bound is a total weight: by default every entry weighs 1, so the capacity is an entry
 * count; with a `weigh` function (e.g. an estimate of the bytes an entry keeps alive) entries of
 * very different sizes, such as empty and full blocks, share one memory budget. The entry just
 * set is never evicted by its own insertion, so an entry heavier than the whole budget is still
 * kept until the next one arrives.
 *
 * With an idle time, entries not asked for within it are dropped as well, at the next insertion:
 * a cache of blocks then holds the blocks its readers use rather than every block of the last
 * hour that fits its budget, and the node's memory follows its working set instead of creeping
 * up to the budgets over a long steady run (docs/benchmarks.md, "The soak's growing heap").
 */
/** Hits and misses of a cache since it was made. */
export interface CacheCounts {
  hits: number;
  misses: number;
}

/** How long an entry may go unused before an insertion drops it, and the clock it is told by. */
export interface IdleLimit {
  ms: number;
  now?: () => number;
}

export class LruCache<K, V> {
  /** In order of use, least recent first: `get` moves an entry to the end. */
  private readonly entries = new Map<K, { value: V; weight: number; usedAt: number }>();
  private totalWeight = 0;
  private readonly now: () => number;
  /** Lookups by {@link get} that found an entry, and those that did not, since creation. */
  readonly counts: CacheCounts = { hits: 0, misses: 0 };

  constructor(
    private readonly capacity: number,
    private readonly weigh: (value: V) => number = () => 1,
    private readonly idle?: IdleLimit,
  ) {
    this.now = idle === undefined ? () => 0 : (idle.now ?? Date.now);
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    entry.usedAt = this.now();
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The value of `key`, as a look that is not a use: neither counted nor made more recent. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value);
    const now = this.now();
    this.entries.set(key, { value, weight, usedAt: now });
    this.totalWeight += weight;
    const unusedSince = this.idle === undefined ? -Infinity : now - this.idle.ms;
    for (const [oldest, entry] of this.entries) {
      if (oldest === key) break;
      if (this.totalWeight <= this.capacity && entry.usedAt >= unusedSince) break;
      this.entries.delete(oldest);
      this.totalWeight -= entry.weight;
    }
  }

  clear(): void {
    this.entries.clear();
    this.totalWeight = 0;
  }

  /** Number of entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Sum of the weights of the entries held. */
  get weight(): number {
    return this.totalWeight;
  }

  private delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.totalWeight -= entry.weight;
  }
}
