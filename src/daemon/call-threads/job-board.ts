/**
 * Memory a call thread shares with the main thread, so that jobs handed over in a batch stay
 * the main thread's to take back until the thread begins them, and so that the main thread
 * knows which job runs and since when without a message per job.
 *
 * Each job handed over has a claim slot holding its id + 1 while it waits. The thread begins a
 * job only if it swaps that value for 0 first; the main thread takes a waiting job back the same
 * way. One compare-and-swap decides who has it, and as the value names the job, a slot reused for
 * a later job can never be mistaken for an earlier one's. Before the thread begins a job it
 * writes the start time, then the job's id + 1 as the running job; after it, 0.
 */

/** Claim slots, by job id modulo their number. */
const SLOTS = 64;
/**
 * Most jobs a batch holds: as many as there are slots, so the jobs of one batch never share one
 * (a thread is handed a batch only once it holds no job of the one before).
 */
export const MAX_BATCH = SLOTS;
/** Bytes: the start time (a float64), then the running job and the claim slots (int32s). */
const BYTES = 8 + 4 * (1 + SLOTS);
/** Ids wrap here, so that id + 1 fits an int32 slot. */
const ID_LIMIT = 2 ** 30;

/** The running job as the main thread sees it. */
export interface RunningJob {
  id: number;
  /** `Date.now()` when the thread began it. */
  startedAt: number;
}

export class JobBoard {
  private readonly startedAt: Float64Array;
  private readonly words: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(BYTES)) {
    this.startedAt = new Float64Array(buffer, 0, 1);
    this.words = new Int32Array(buffer, 8, 1 + SLOTS);
  }

  /** The id after `id`. */
  static next(id: number): number {
    return (id + 1) % ID_LIMIT;
  }

  /** Main thread: job `id` is handed over and waits for the thread. */
  offer(id: number): void {
    Atomics.store(this.words, 1 + (id % SLOTS), id + 1);
  }

  /** Main thread: takes job `id` back; false when the thread has begun it already. */
  reclaim(id: number): boolean {
    return Atomics.compareExchange(this.words, 1 + (id % SLOTS), id + 1, 0) === id + 1;
  }

  /** Thread: claims job `id` and marks it running; false when the main thread took it back. */
  begin(id: number): boolean {
    if (Atomics.compareExchange(this.words, 1 + (id % SLOTS), id + 1, 0) !== id + 1) return false;
    this.startedAt[0] = Date.now();
    Atomics.store(this.words, 0, id + 1);
    return true;
  }

  /** Thread: the running job has ended. */
  end(): void {
    Atomics.store(this.words, 0, 0);
  }

  /**
   * Main thread: the job the thread runs now, if any. The start time is read between two reads
   * of the running job, which differ if the thread moved on meanwhile (then it is read again).
   */
  running(): RunningJob | undefined {
    for (;;) {
      const before = Atomics.load(this.words, 0);
      if (before === 0) return undefined;
      const startedAt = this.startedAt[0]!;
      if (Atomics.load(this.words, 0) === before) return { id: before - 1, startedAt };
    }
  }
}
