/**
 * The pool journal: every transaction the pool holds, on disk, so that a restart (after
 * `kill -9` or a graceful stop) re-admits what the node acknowledged.
 *
 * Why this shape:
 * - Group commit. Writes (an admitted transaction) and removals (mined, replaced, dropped,
 *   evicted, expired) gather in memory, for `intervalMs` after the first of a batch and while
 *   the previous commit is in progress, and reach LMDB in one write transaction, synced to disk
 *   before the writers' promises resolve. The pool answers a
 *   submission only once its write has resolved, so an acknowledged transaction is on disk; one
 *   commit per batch rather than per transaction keeps admission throughput. Commits run one at
 *   a time, so a batch grows while the disk is busy with the previous one.
 * - An LMDB environment of its own (`<datadir>/txpool`), not a table of the chain store: journal
 *   commits never queue behind a block's commit (thousands of trie nodes), and the block stays
 *   the chain's crash-safety unit untouched. Mined transactions leave the journal in the group
 *   commit after their block; a node that dies in between finds them mined on restart ("nonce
 *   too low") and drops them then.
 * - Off the main thread. A batch is written as lmdb's asynchronous writes (`writeAsync`), so
 *   LMDB's B-tree updates run on lmdb's write thread, and the main thread, which answers
 *   requests, spends only the copying of keys and values, in time slices. A burst's batch of a
 *   thousand writes or a block's thousand removals took 5–15 ms of the main thread in one piece
 *   inside a transaction callback. No atomicity is lost: every entry stands on its own, and a
 *   writer's promise still resolves only once its entry is committed and flushed.
 * - Keyed by transaction hash, valued by the sender's public key and the signed transaction's
 *   bytes. Operations on one key within a batch collapse to the last, so a replacement is the old
 *   key's removal and the new key's write in the same commit. The key was recovered when the
 *   transaction was admitted; kept beside it, a restart need not recover it again (about 1 ms
 *   per transaction), as the chain store keeps the senders of mined transactions.
 */
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Common } from '@ethereumjs/common';
import { createTxFromRLP } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import { ServerError } from '../../shared/errors.js';
import { LMDB_FILE_MISSING, lmdbFileProblem, unreadable, writeAsync } from '../chain/lmdb-file.js';
import type { Pause } from '../time-slice.js';

/** Address space for the journal's memory map: a full pool of 128 KiB transactions fits. */
const JOURNAL_MAP_SIZE = 2 * 2 ** 30;

/** Length of an uncompressed secp256k1 public key without its prefix byte, as EthereumJS keeps it. */
const PUBLIC_KEY_BYTES = 64;

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** The slice of the journal the pool writes to. */
export interface JournalWriter {
  /**
   * Queues an admitted transaction (its sender already recovered) for the next group commit;
   * resolves once it is on disk. `encoded` is `tx.serialize()` when the caller has it already.
   */
  write(hashHex: string, tx: TypedTransaction, encoded?: Uint8Array): Promise<void>;
  /** Queues the removal of a transaction for the next group commit. */
  remove(hashHex: string): void;
}

/** A journal file that could not be used: what was wrong, and where it was moved. */
export interface JournalDamage {
  problem: string;
  movedTo: string;
}

/** What a journal holds at start. */
export interface JournaledTransactions {
  transactions: TypedTransaction[];
  /** Hashes of entries that did not decode as transactions. */
  unreadable: string[];
}

/**
 * Moves a damaged journal file out of the way (replacing one moved earlier), so that a fresh
 * journal starts in `dir`; answers where the damaged file went.
 *
 * Why not refuse to start, as a damaged chain store is refused: the journal only holds what the
 * pool held, which clients can send again, and lmdb would die of SIGBUS on a truncated file
 * rather than report it. geth too starts without a journal it cannot read.
 */
function setAside(dir: string): string {
  const movedTo = join(dir, 'data.mdb.damaged');
  renameSync(join(dir, 'data.mdb'), movedTo);
  return movedTo;
}

function openJournal(dir: string): {
  root: RootDatabase;
  entries: Database<Uint8Array, Buffer>;
} {
  const root = open({ path: dir, maxDbs: 2, compression: false, mapSize: JOURNAL_MAP_SIZE });
  const entries = root.openDB<Uint8Array, Buffer>('transactions', {
    keyEncoding: 'binary',
    encoding: 'binary',
  });
  return { root, entries };
}

/**
 * Reads every entry once, as the start reads them anyway: what fails, if anything. Damage inside
 * the file (a bad page pointer) passes the header check and would otherwise stop the start with
 * LMDB's bare error, or leave a later write that meets it unanswered by lmdb-js.
 */
function readProblem(entries: Database<Uint8Array, Buffer>): string | undefined {
  try {
    for (const entry of entries.getRange({})) void entry;
    return undefined;
  } catch (error) {
    return unreadable(error);
  }
}

function hashKey(hashHex: string): Buffer {
  return Buffer.from(hashHex.slice(2), 'hex');
}

export class PoolJournal implements JournalWriter {
  /** Operations of the next batch by hash: the entry to write, or null to remove. */
  private batch = new Map<string, Uint8Array | null>();
  private waiters: Waiter[] = [];
  private scheduled = false;
  private closed = false;
  private committing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly root: RootDatabase,
    private readonly entries: Database<Uint8Array, Buffer>,
    private readonly intervalMs: number,
    private readonly pause: Pause,
  ) {}

  /**
   * Opens (creating if needed) the journal in `dir`. `intervalMs` is the group-commit window:
   * how long the first write of a batch waits for others before the batch is committed; 0
   * commits at the end of the current event-loop turn. A commit lets the event loop run at
   * `pause` (default: never). A damaged journal (its file's header or length, or an entry that
   * cannot be read) is set aside and a fresh one started, told to `onDamaged`.
   */
  static async open(
    dir: string,
    intervalMs: number,
    pause: Pause = () => undefined,
    onDamaged: (damage: JournalDamage) => void = () => undefined,
  ): Promise<PoolJournal> {
    mkdirSync(dir, { recursive: true });
    // An empty file is damage too: LMDB writes its header as it makes the file, so a journal
    // that once held transactions and was emptied would otherwise start over without a word.
    const problem = lmdbFileProblem(join(dir, 'data.mdb'));
    if (problem !== undefined && problem !== LMDB_FILE_MISSING) {
      onDamaged({ problem, movedTo: setAside(dir) });
    }
    let opened = openJournal(dir);
    const unreadable = readProblem(opened.entries);
    if (unreadable !== undefined) {
      // A damaged environment may fail to close; its file is set aside either way.
      await opened.root.close().catch(() => undefined);
      onDamaged({ problem: unreadable, movedTo: setAside(dir) });
      opened = openJournal(dir);
    }
    return new PoolJournal(opened.root, opened.entries, intervalMs, pause);
  }

  /**
   * Every journaled transaction, in no particular order, its sender known without recovery. An
   * entry that does not decode is left out, and removed with the next commit.
   */
  transactions(common: Common): JournaledTransactions {
    const transactions: TypedTransaction[] = [];
    const unreadable: string[] = [];
    for (const { key, value } of this.entries.getRange({})) {
      // A copy: the transaction's fields are views of these bytes and outlive the read.
      const entry = new Uint8Array(value);
      try {
        const tx = createTxFromRLP(entry.subarray(PUBLIC_KEY_BYTES), { common });
        tx.cache.senderPubKey = entry.subarray(0, PUBLIC_KEY_BYTES);
        transactions.push(tx);
      } catch {
        const hashHex = `0x${Buffer.from(key).toString('hex')}`;
        unreadable.push(hashHex);
        this.remove(hashHex);
      }
    }
    return { transactions, unreadable };
  }

  write(hashHex: string, tx: TypedTransaction, encoded?: Uint8Array): Promise<void> {
    if (this.closed) {
      return Promise.reject(new ServerError('the node is shutting down: transaction not accepted'));
    }
    const serialized = encoded ?? tx.serialize();
    const entry = new Uint8Array(PUBLIC_KEY_BYTES + serialized.length);
    entry.set(tx.getSenderPublicKey(), 0);
    entry.set(serialized, PUBLIC_KEY_BYTES);
    this.batch.set(hashHex, entry);
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
      const entries = (function* () {
        for (const [hashHex, entry] of batch) yield [hashKey(hashHex), entry ?? undefined] as const;
      })();
      await writeAsync(
        this.root,
        this.entries,
        entries,
        'the transaction pool journal',
        this.pause,
      );
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
