/**
 * The pool journal: every transaction the pool holds, on disk, so that a restart (after
 * `kill -9` or a graceful stop) re-admits what the node acknowledged.
 *
 * Why this shape:
 * - Group commit. Writes (an admitted transaction) and removals (mined, replaced, dropped,
 *   evicted, expired) gather in memory for at most `intervalMs` and reach LMDB in one write
 *   transaction, synced to disk before the writers' promises resolve. The pool answers a
 *   submission only once its write has resolved, so an acknowledged transaction is on disk; one
 *   commit per batch rather than per transaction keeps admission throughput. Commits run one at
 *   a time, so a batch grows while the disk is busy with the previous one.
 * - An LMDB environment of its own (`<datadir>/txpool`), not a table of the chain store: journal
 *   commits never queue behind a block's commit (thousands of trie nodes), and the block stays
 *   the chain's crash-safety unit untouched. Mined transactions leave the journal in the group
 *   commit after their block; a node that dies in between finds them mined on restart ("nonce
 *   too low") and drops them then.
 * - Keyed by transaction hash, valued by the signed transaction's bytes. Operations on one key
 *   within a batch collapse to the last, so a replacement is the old key's removal and the new
 *   key's write in the same commit.
 */
import { mkdirSync } from 'node:fs';
import { open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import { ServerError } from '../errors.js';

/** Address space for the journal's memory map: a full pool of 128 KiB transactions fits. */
const JOURNAL_MAP_SIZE = 2 * 2 ** 30;

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** The slice of the journal the pool writes to. */
export interface JournalWriter {
  /** Queues a transaction for the next group commit; resolves once it is on disk. */
  write(hashHex: string, serialized: Uint8Array): Promise<void>;
  /** Queues the removal of a transaction for the next group commit. */
  remove(hashHex: string): void;
}

function hashKey(hashHex: string): Buffer {
  return Buffer.from(hashHex.slice(2), 'hex');
}

export class PoolJournal implements JournalWriter {
  /** Operations of the next batch by hash: the bytes to write, or null to remove. */
  private batch = new Map<string, Uint8Array | null>();
  private waiters: Waiter[] = [];
  private scheduled = false;
  private closed = false;
  private committing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly root: RootDatabase,
    private readonly transactions: Database<Uint8Array, Buffer>,
    private readonly intervalMs: number,
  ) {}

  /**
   * Opens (creating if needed) the journal in `dir`. `intervalMs` is the group-commit window:
   * how long the first write of a batch waits for others before the batch is committed; 0
   * commits at the end of the current event-loop turn.
   */
  static open(dir: string, intervalMs: number): PoolJournal {
    mkdirSync(dir, { recursive: true });
    const root = open({ path: dir, maxDbs: 2, compression: false, mapSize: JOURNAL_MAP_SIZE });
    const transactions = root.openDB<Uint8Array, Buffer>('transactions', {
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    return new PoolJournal(root, transactions, intervalMs);
  }

  /** Every journaled transaction's bytes, in no particular order. */
  entries(): Uint8Array[] {
    return [...this.transactions.getRange({}).map(({ value }) => value)];
  }

  write(hashHex: string, serialized: Uint8Array): Promise<void> {
    if (this.closed) {
      return Promise.reject(new ServerError('the node is shutting down: transaction not accepted'));
    }
    this.batch.set(hashHex, serialized);
    const written = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.schedule();
    return written;
  }

  remove(hashHex: string): void {
    if (this.closed) return;
    this.batch.set(hashHex, null);
    this.schedule();
  }

  /** Commits what is queued, waits for it, and closes the environment. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.committing = this.committing.then(() => this.commit());
    await this.committing;
    await this.root.close();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const enqueue = () => {
      if (this.closed) return;
      this.committing = this.committing.then(() => this.commit());
    };
    if (this.intervalMs > 0) setTimeout(enqueue, this.intervalMs);
    else setImmediate(enqueue);
  }

  private async commit(): Promise<void> {
    this.scheduled = false;
    const { batch, waiters } = this;
    this.batch = new Map();
    this.waiters = [];
    if (batch.size === 0) return;
    try {
      await this.root.transaction(() => {
        for (const [hashHex, serialized] of batch) {
          if (serialized === null) this.transactions.removeSync(hashKey(hashHex));
          else this.transactions.putSync(hashKey(hashHex), serialized);
        }
      });
      // Committed survives the process; flushed survives the machine.
      await this.root.flushed;
      for (const waiter of waiters) waiter.resolve();
    } catch (error) {
      const failure = new ServerError('failed to write the transaction pool journal', {
        cause: error,
      });
      for (const waiter of waiters) waiter.reject(failure);
    }
  }
}
