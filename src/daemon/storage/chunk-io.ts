/**
 * Chunk I/O threads: the hashing of an upload's chunks and the durable writes of replicas, done
 * on a few threads of their own, one message per job. On the event loop, which also receives
 * the upload's bytes, that work cost more than the hashing itself: WebCrypto's digest copies its
 * input and wipes the copy, and a write through fs/promises is five thread-pool round trips
 * (open, write, fsync, close, rename), each a turn of the loop (docs/benchmarks.md, "Storage
 * upload"). An upload's chunk buffers are shared memory (aligned-buffers.ts), so a job carries
 * a view of them and the bytes are not copied; other bytes (a repair's) are copied once.
 *
 * The threads start with the first job and end after `IDLE_MS` without one, so a node that is
 * not uploading holds none. A thread that dies fails the jobs it held, and the next job starts
 * another.
 */
import { Worker } from 'node:worker_threads';
import { StorageError } from '../../shared/errors.js';

export type ChunkIoJob =
  | { kind: 'hash'; seq: number; bytes: Uint8Array }
  | {
      kind: 'write';
      seq: number;
      bytes: Uint8Array;
      /** Where the bytes are written and synced before the rename. */
      temp: string;
      target: string;
      /** Whether to open `temp` with O_DIRECT (the bytes are page-aligned). */
      direct: boolean;
    };

/** A job's outcome: the chunk id of a hash; an errno-style failure of either. */
export interface ChunkIoAnswer {
  seq: number;
  id?: string;
  error?: { message: string; code?: string };
}

/** A job as its caller gives it; `run` numbers it. */
type JobBody<J = ChunkIoJob> = J extends ChunkIoJob ? Omit<J, 'seq'> : never;

/**
 * Threads at most: one hashes while another waits on the disk. More did not upload faster on
 * two cores (docs/benchmarks.md).
 */
const THREADS = 2;
/** How long the threads outlive their last job. */
const IDLE_MS = 10_000;

interface Waiting {
  resolve(answer: ChunkIoAnswer): void;
  reject(error: Error): void;
}

class IoThread {
  readonly waiting = new Map<number, Waiting>();
  private readonly worker: Worker;

  constructor(entry: URL, ended: (thread: IoThread) => void) {
    this.worker = new Worker(entry);
    // The daemon's servers keep it running; an idle thread must not keep anything else alive.
    this.worker.unref();
    this.worker.on('message', (answer: ChunkIoAnswer) => {
      const job = this.waiting.get(answer.seq);
      this.waiting.delete(answer.seq);
      job?.resolve(answer);
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', (code) => {
      this.failAll(new StorageError(`a chunk I/O thread stopped (exit code ${code})`));
      ended(this);
    });
  }

  run(job: ChunkIoJob): Promise<ChunkIoAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting.set(job.seq, { resolve, reject });
      this.worker.postMessage(job);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  private failAll(error: Error): void {
    for (const job of this.waiting.values()) job.reject(error);
    this.waiting.clear();
  }
}

/** A failure a thread reported, with its errno code, as Node's own fs errors carry it. */
function errnoError({ message, code }: { message: string; code?: string }): Error {
  return Object.assign(new Error(message), { code });
}

export class ChunkIo {
  private readonly threads: IoThread[] = [];
  private nextSeq = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  /** @param entry the compiled thread entry (`chunk-io-thread.js`). */
  constructor(private readonly entry: URL) {}

  /** The chunk id (hex SHA-256) of `bytes`. */
  async hash(bytes: Uint8Array): Promise<string> {
    return (await this.run({ kind: 'hash', bytes })).id as string;
  }

  /**
   * Writes `bytes` to `temp`, fsyncs it and renames it to `target`. Fails with the errno-style
   * error of the step that failed (`code` ENOENT, ENOSPC, EINVAL, ...); `temp` may then remain.
   */
  async write(bytes: Uint8Array, temp: string, target: string, direct: boolean): Promise<void> {
    await this.run({ kind: 'write', bytes, temp, target, direct });
  }

  /** Ends the threads; jobs they held fail. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await Promise.all(this.threads.splice(0).map((thread) => thread.stop()));
  }

  private async run(body: JobBody): Promise<ChunkIoAnswer> {
    clearTimeout(this.idleTimer);
    const job = { ...body, seq: this.nextSeq++ } as ChunkIoJob;
    try {
      const answer = await this.leastBusy().run(job);
      if (answer.error) throw errnoError(answer.error);
      return answer;
    } finally {
      if (this.threads.every((thread) => thread.waiting.size === 0)) {
        this.idleTimer = setTimeout(() => void this.close(), IDLE_MS).unref();
      }
    }
  }

  /** An idle thread, a new one while there may be more, or else the one with fewest jobs. */
  private leastBusy(): IoThread {
    const idle = this.threads.find((thread) => thread.waiting.size === 0);
    if (idle) return idle;
    if (this.threads.length < THREADS) {
      const thread = new IoThread(this.entry, (ended) => {
        const at = this.threads.indexOf(ended);
        if (at >= 0) this.threads.splice(at, 1);
      });
      this.threads.push(thread);
      return thread;
    }
    return this.threads.reduce((best, thread) =>
      thread.waiting.size < best.waiting.size ? thread : best,
    );
  }
}
