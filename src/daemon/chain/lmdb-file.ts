/**
 * Cheap checks of an LMDB data file before it is memory-mapped, and the commit wrapper every
 * LMDB writer of the node uses.
 *
 * Why: lmdb maps `data.mdb` and trusts it. A truncated or overwritten file is found only when a
 * page past its end or a garbage pointer is touched, and then the process dies of SIGBUS or
 * SIGSEGV without a word. Reading the two meta pages first (magic, format version, page size,
 * last page number) catches empty, truncated and overwritten files with one small read.
 */
import { closeSync, fstatSync, openSync, readSync, statSync, truncateSync } from 'node:fs';
import type { Database, RootDatabase } from 'lmdb';
import { DamagedStoreError, StorageError } from '../../shared/errors.js';
import type { Pause } from '../time-slice.js';

const MDB_MAGIC = 0xbeefc0de;
/** `MDB_DATA_VERSION` of the LMDB that lmdb-js builds. */
const MDB_DATA_VERSION = 2;
/**
 * Offsets inside a meta page of lmdb-js's LMDB (64-bit): a 24-byte page header (page number,
 * transaction id, pad, flags, bounds), then `MDB_meta`: magic, version, fixed address, map size,
 * the free and main `MDB_db` records (48 bytes each; the first's pad is the page size), the
 * last page number and the transaction id of the meta page.
 */
const META = { magic: 24, version: 28, pageSize: 48, lastPage: 144, txnId: 152, end: 160 };
/** LMDB's smallest page size; the second meta page starts at the page size. */
const MIN_PAGE_SIZE = 512;
const MAX_PAGE_SIZE = 65_536;

interface MetaPage {
  pageSize: number;
  lastPage: number;
  txnId: bigint;
}

function readAt(fd: number, position: number, length: number): Buffer | undefined {
  const buffer = Buffer.alloc(length);
  return readSync(fd, buffer, 0, length, position) === length ? buffer : undefined;
}

function metaPage(bytes: Buffer | undefined): MetaPage | undefined {
  if (bytes === undefined) return undefined;
  if (bytes.readUInt32LE(META.magic) !== MDB_MAGIC) return undefined;
  if (bytes.readUInt32LE(META.version) !== MDB_DATA_VERSION) return undefined;
  const pageSize = bytes.readUInt32LE(META.pageSize);
  if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || (pageSize & (pageSize - 1)) !== 0) {
    return undefined;
  }
  const lastPage = bytes.readBigUInt64LE(META.lastPage);
  if (lastPage > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { pageSize, lastPage: Number(lastPage), txnId: bytes.readBigUInt64LE(META.txnId) };
}

/** `lmdbFileProblem`'s words for a file LMDB would create afresh. */
export const LMDB_FILE_MISSING = 'is missing';
export const LMDB_FILE_EMPTY = 'is empty (0 bytes)';

/**
 * What is wrong with the LMDB data file at `path`, in words, or undefined when its header is
 * sound and the file is as long as its newest meta page says. A missing file is reported too.
 *
 * The meta pages are read before the file's size: a writer beside the check (a running daemon)
 * writes a transaction's pages before its meta page and never shortens the file, so a size taken
 * after the meta always covers it, while a size taken first can miss the pages of a transaction
 * committed in between and report a sound file as truncated.
 */
export function lmdbFileProblem(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return LMDB_FILE_MISSING;
  }
  try {
    const first = metaPage(readAt(fd, 0, META.end));
    const second = first && metaPage(readAt(fd, first.pageSize, META.end));
    const size = fstatSync(fd).size;
    if (size === 0) return LMDB_FILE_EMPTY;
    if (first === undefined) return 'has no valid LMDB header (first meta page damaged)';
    if (second === undefined || second.pageSize !== first.pageSize) {
      return 'has no valid LMDB header (second meta page damaged)';
    }
    const newest = second.txnId > first.txnId ? second : first;
    const needed = (newest.lastPage + 1) * newest.pageSize;
    if (size < needed) return `is truncated (${size} bytes, its header needs at least ${needed})`;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * `lmdbFileProblem` of a file that must be sound if it is there: undefined as well when it is
 * missing or empty, where LMDB creates a new environment.
 */
export function lmdbFileDamage(path: string): string | undefined {
  const problem = lmdbFileProblem(path);
  return problem === LMDB_FILE_MISSING || problem === LMDB_FILE_EMPTY ? undefined : problem;
}

interface TreeStats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  lastPageNumber?: number;
  free?: TreeStats;
}

/** Pages set aside per page of the trees a large delete touches (copies, freelist), plus some. */
const DELETE_PAGE_FACTOR = 2;
const DELETE_SPARE_PAGES = 64;

/**
 * Extends (sparsely) the data file at `dataFile` past every page a transaction that deletes
 * from `trees` could allocate. Called at the start of that transaction (`commitDeletes`).
 *
 * Why: a transaction that deletes many entries copies pages, merges them and frees the copies
 * again within itself; LMDB counts those pages in its header's last page number but never
 * writes them, so the file ends before the page its header names, which `lmdbFileProblem`
 * (rightly, for any other cause) reports as truncated and the next start refuses. Pages past
 * the last one in use are free and never read, so zeros there are harmless, and a file extended
 * first is long enough whether the transaction then commits or the process dies.
 */
function extendForDeletes(
  dataFile: string,
  root: { getStats(): unknown },
  trees: ReadonlyArray<{ getStats(): unknown }>,
): void {
  const env = root.getStats() as TreeStats;
  const touched = [env, env.free, ...trees.map((tree) => tree.getStats() as TreeStats)].reduce(
    (pages, stats) =>
      pages + (stats === undefined ? 0 : stats.treeBranchPageCount + stats.treeLeafPageCount),
    0,
  );
  const lastPage = env.lastPageNumber ?? 0;
  const wanted = (lastPage + 1 + DELETE_PAGE_FACTOR * touched + DELETE_SPARE_PAGES) * env.pageSize;
  if (statSync(dataFile).size < wanted) truncateSync(dataFile, wanted);
}

/** LMDB's own error codes (`MDB_KEYEXIST` -30799 to `MDB_BAD_DBI` -30780), as lmdb-js reports them. */
const LMDB_ERROR_CODES = { first: -30799, last: -30780 };

/**
 * Whether `error` is LMDB reporting on the file itself (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`,
 * or `MDB_BAD_TXN` after either), as a damaged page pointer makes it, rather than a failure of
 * the caller's or the system's.
 */
export function isLmdbError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    typeof code === 'number' && code >= LMDB_ERROR_CODES.first && code <= LMDB_ERROR_CODES.last
  );
}

/** The problem a store that LMDB could not read is refused or set aside with. */
export function unreadable(error: unknown): string {
  return `cannot be read (${error instanceof Error ? error.message : String(error)})`;
}

/**
 * What a read LMDB refused while the node runs (damage no check had found yet, such as a bad
 * page pointer) is told to a client as, over JSON-RPC and REST alike; undefined for any other
 * failure.
 */
export function lmdbDamage(error: unknown): DamagedStoreError | undefined {
  if (!isLmdbError(error)) return undefined;
  return new DamagedStoreError(
    `a store of the data directory ${unreadable(error)}: it is damaged. node-cli daemon ` +
      'check lists what is damaged in the chain store; restore the data directory from a backup',
  );
}

/**
 * Reads the first and the last key of `tree`, root to leaf. Damage inside the file that its
 * header does not show (a bad page pointer along either edge) then throws here, at open, rather
 * than meet a later write, which lmdb-js may never answer (it prints `do_write error`).
 */
export function readTreeEdges(tree: {
  getKeys(options: { limit: number; reverse: boolean }): Iterable<unknown>;
}): void {
  for (const reverse of [false, true]) {
    for (const key of tree.getKeys({ limit: 1, reverse })) void key;
  }
}

function ignore(): void {}

/**
 * Runs `write` as one LMDB write transaction and resolves once it is committed. A failed commit
 * (disk full, I/O error) rejects with a `StorageError` whose cause is the system error.
 */
export async function commitLmdb(
  root: RootDatabase,
  what: string,
  write: () => void,
): Promise<void> {
  const committing = root.transaction(write);
  setImmediate(() => void root.committed.then(undefined, ignore));
  try {
    await committing;
  } catch (error) {
    throw await storageFailure(error, what);
  }
}

/**
 * `commitLmdb` for a transaction that deletes from `trees`, with the data file extended for it
 * (`extendForDeletes`) inside the transaction. There LMDB's writer lock keeps every other write
 * of the environment (lmdb's write thread included) from growing the file between the size read
 * and the extension; outside it, such a write could land in between, and the extension, shorter
 * than the file by then, would cut off the pages that write had just committed.
 */
export function commitDeletes(
  root: RootDatabase,
  dataFile: string,
  trees: ReadonlyArray<{ getStats(): unknown }>,
  what: string,
  write: () => void,
): Promise<void> {
  return commitLmdb(root, what, () => {
    extendForDeletes(dataFile, root, trees);
    write();
  });
}

/**
 * Applies `entries` to `db` (a value to store, undefined to delete) as lmdb's batched
 * asynchronous writes, letting the event loop run at `pause`, and resolves once every batch is
 * committed; a failed batch rejects with a `StorageError`. The entries land in one or more
 * transactions of their own, in order, so only writes that need no atomicity with anything else
 * belong here.
 *
 * Why: inside a transaction callback every write runs LMDB's B-tree update on the main thread
 * (some 20 ms for the trie nodes of a full block). An asynchronous write only copies its key and
 * value into lmdb's instruction buffer; the update runs on lmdb's write thread.
 */
export async function writeAsync(
  root: RootDatabase,
  db: Database<Uint8Array, Buffer>,
  entries: Iterable<readonly [key: Buffer, value: Uint8Array | undefined]>,
  what: string,
  pause: Pause,
): Promise<void> {
  // Every write of one batch answers the same promise; each is watched from the start, since
  // one that fails while a later pause waits would otherwise be an unhandled rejection.
  const batches = new Set<Promise<boolean>>();
  try {
    for (const [key, value] of entries) {
      const paused = pause();
      if (paused !== undefined) await paused;
      const batch = value === undefined ? db.remove(key) : db.put(key, value);
      if (!batches.has(batch)) {
        batches.add(batch);
        batch.then(undefined, ignore);
      }
    }
    setImmediate(() => void root.committed.then(undefined, ignore));
    await Promise.all(batches);
  } catch (error) {
    throw await storageFailure(error, what);
  }
}

/**
 * The `StorageError` for a failed lmdb write of `what`, with the system error as its cause.
 *
 * Why the extra handlers (here and above): on a failed commit lmdb-js also rejects the promise
 * of the write batch it opens for the event turn (created on the next turn, reachable only as
 * `root.committed`) and a `commitError` promise hung on the error; left alone either is an
 * unhandled rejection, which ends the process.
 */
async function storageFailure(error: unknown, what: string): Promise<StorageError> {
  const pending = (error as { commitError?: Promise<unknown> }).commitError;
  let cause: unknown = error;
  if (pending !== undefined) {
    pending.catch(ignore);
    // lmdb rejects it in the same step as the transaction; one turn is plenty.
    cause = await Promise.race([
      pending.then(
        () => error,
        (reason: unknown) => reason,
      ),
      new Promise((resolve) => setImmediate(() => resolve(error))),
    ]);
  }
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new StorageError(`failed to write ${what}: ${detail}`, { cause });
}
