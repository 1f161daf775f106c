/**
 * The log index: which blocks hold logs of a given address, or a given topic at a given
 * position, so `eth_getLogs` reads the receipts of those blocks only instead of every block of
 * the range.
 *
 * Why it is shaped this way:
 * - It is derived data. It lives in its own LMDB environment (`<datadir>/log-index`), is fed by
 *   the event bus after each commit, and on open catches up from the chain (the chain is the
 *   truth; after a crash the index may lag by a block or two, never lead). Queries read the
 *   index up to `indexedHeight` and the receipts of any newer block directly, so a block is
 *   found by `eth_getLogs` as soon as the chain has it.
 * - One key per (kind, value, block): kind 0 marks a block with any log, kind 1 an address,
 *   kinds 2 to 5 a topic at positions 0 to 3. The block number ends the key (big-endian), so
 *   the blocks of one value within a range are one ordered LMDB range scan.
 * - Candidate blocks are exact for each single constraint and intersected across constraints;
 *   the caller still matches every log of a candidate block, since one log may satisfy the
 *   address and another the topic.
 * - Writes are asynchronous LMDB transactions chained in block order, so indexing never holds
 *   up the publisher of blocks.
 * - The index remembers the hash of the last block it indexed and starts over when the chain
 *   no longer has that block at that height (a re-initialised data directory).
 * - Being derived, a damaged index is deleted and rebuilt, never refused: its file is checked
 *   before lmdb maps it (`lmdbFileProblem`), and an index that cannot be opened or read, or
 *   that claims blocks the chain does not have, starts over (logged at warn). Damage inside the
 *   file passes those checks; it shows when a query or a write fails on it, and the index is
 *   then rebuilt while the node runs, queries reading receipts meanwhile.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import type { Chain } from '../chain/chain.js';
import { LMDB_MAP_SIZE } from '../chain/store.js';
import {
  LMDB_FILE_MISSING,
  commitDeletes,
  commitLmdb,
  lmdbFileDamage,
  lmdbFileProblem,
  readTreeEdges,
  writeAsync,
} from '../chain/lmdb-file.js';
import type { Pause } from '../time-slice.js';
import { ServerError, StorageError } from '../../shared/errors.js';
import type { ChainReceipt } from '../chain/types.js';
import type { BlockCommittedEvent, ChainRewoundEvent, EventBus, Unsubscribe } from './event-bus.js';
import type { LogCriteria } from './log-filter.js';

export interface LogIndexOptions {
  /** Directory of the index's LMDB environment (created if missing). */
  dir: string;
  chain: Chain;
  bus: EventBus;
  /** Told when indexing a block failed; queries then read receipts past the indexed height. */
  onError?: (error: unknown) => void;
  /** Told that the index was found damaged and is being rebuilt from the chain. */
  onRebuild?: (problem: string) => void;
  /** Where indexing lets the event loop run. Default: never. */
  pause?: Pause;
}

interface OpenedIndex {
  root: RootDatabase;
  entries: Database<Uint8Array, Buffer>;
  meta: Database<IndexState, string>;
  state: IndexState;
}

const KIND_ANY = 0;
const KIND_ADDRESS = 1;
const KIND_TOPIC_0 = 2;
const NUMBER_BYTES = 8;
/** Blocks per LMDB transaction while catching up with the chain. */
const CATCH_UP_BATCH = 512;
const STATE_KEY = 'state';
const PRESENT = Uint8Array.of(1);

interface IndexState {
  /** Highest indexed block, -1 when none is. */
  height: number;
  /** Hash (0x-hex) of that block, to recognise the chain it belongs to. */
  hash: string;
}

const EMPTY_STATE: IndexState = { height: -1, hash: '' };

function encodeNumber(target: Buffer, offset: number, number: number): void {
  target.writeUInt32BE(Math.floor(number / 2 ** 32), offset);
  target.writeUInt32BE(number >>> 0, offset + 4);
}

function decodeNumber(key: Uint8Array): number {
  const view = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const offset = key.byteLength - NUMBER_BYTES;
  return view.readUInt32BE(offset) * 2 ** 32 + view.readUInt32BE(offset + 4);
}

function entryKey(prefix: Uint8Array, number: number): Buffer {
  const key = Buffer.allocUnsafe(prefix.length + NUMBER_BYTES);
  key.set(prefix, 0);
  encodeNumber(key, prefix.length, number);
  return key;
}

function prefix(kind: number, value?: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(1 + (value?.length ?? 0));
  bytes[0] = kind;
  if (value !== undefined) bytes.set(value, 1);
  return bytes;
}

/** Adds the key prefixes of `receipt`'s logs to `prefixes` (by hex, so each is there once). */
function addPrefixes(prefixes: Map<string, Uint8Array>, receipt: ChainReceipt): void {
  const add = (kind: number, value: Uint8Array) => {
    const key = prefix(kind, value);
    prefixes.set(bytesToHex(key), key);
  };
  for (const log of receipt.logs) {
    add(KIND_ADDRESS, log.address.bytes);
    log.topics.forEach((topic, position) => add(KIND_TOPIC_0 + position, topic));
  }
}

/** The keys of block `number` given its logs' `prefixes`: those and the marker, if any. */
function keysOf(number: number, prefixes: Map<string, Uint8Array>): Buffer[] {
  if (prefixes.size === 0) return [];
  return [prefix(KIND_ANY), ...prefixes.values()].map((p) => entryKey(p, number));
}

/** The index keys of one block: one per distinct address, positioned topic, plus the marker. */
function blockKeys(number: number, receipts: readonly ChainReceipt[]): Buffer[] {
  const prefixes = new Map<string, Uint8Array>();
  for (const receipt of receipts) addPrefixes(prefixes, receipt);
  return keysOf(number, prefixes);
}

function intersectSorted(a: readonly number[], b: readonly number[]): number[] {
  const result: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      result.push(a[i]);
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return result;
}

/**
 * Whether a failed write of the index (a `StorageError`) failed for its disk (full, read-only,
 * I/O error), which a later block may get past, rather than for damage inside the index.
 */
function diskFailure(error: unknown): boolean {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && DISK_ERROR_CODES.has(code)) return true;
  return DISK_ERROR_TEXT.test(cause instanceof Error ? cause.message : String(cause));
}

const DISK_ERROR_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS']);
const DISK_ERROR_TEXT = /No space left|Disk quota|Input\/output error|Read-only file system/i;

/**
 * Whether an indexing step failed for damage inside the index: a write its own environment
 * refused for something other than its disk. A disk failure may pass with the next block, and a
 * block the chain cannot give (damage to the chain, `DamagedStoreError`) is no reason to delete
 * the index.
 */
function indexDamage(error: unknown): boolean {
  return error instanceof StorageError && !diskFailure(error);
}

export class LogIndex {
  private height: number;
  private writing: Promise<void> = Promise.resolve();
  private unsubscribe: Unsubscribe | undefined;
  /**
   * The open environment: undefined while a rebuild after damage runs, and for good once that
   * rebuild failed or damage was found again.
   */
  private opened: OpenedIndex | undefined;
  /** Whether damage found while running has already been answered with a rebuild. */
  private rebuilt = false;

  private constructor(
    private readonly options: LogIndexOptions,
    opened: OpenedIndex,
    private readonly onError: (error: unknown) => void,
    private readonly pause: Pause,
  ) {
    this.opened = opened;
    this.height = opened.state.height;
  }

  private get dataFile(): string {
    return join(this.options.dir, 'data.mdb');
  }

  /**
   * Opens the index, brings it up to the chain's head, then follows committed blocks on the bus.
   * Call it before blocks are produced, and `close` it before the chain.
   */
  static async open(options: LogIndexOptions): Promise<LogIndex> {
    let opened: OpenedIndex;
    try {
      opened = await LogIndex.openChecked(options);
    } catch (error) {
      options.onRebuild?.((error as Error).message);
      rmSync(options.dir, { recursive: true, force: true });
      opened = await LogIndex.openChecked(options);
    }
    const index = new LogIndex(
      options,
      opened,
      options.onError ?? ((error) => console.error('log index: indexing failed', error)),
      options.pause ?? (() => undefined),
    );
    try {
      await index.catchUp(Number(options.chain.head().number));
    } catch (error) {
      await opened.root.close();
      throw error;
    }
    const stopBlocks = options.bus.onBlock((event) => index.follow(event));
    const stopRewinds = options.bus.onRewind((event) => index.rewind(event));
    index.unsubscribe = () => {
      stopBlocks();
      stopRewinds();
    };
    return index;
  }

  /**
   * Opens the environment and reads its state, throwing (with what is wrong) when the file is
   * damaged or the index claims blocks the chain does not have. An index of another chain (same
   * height, other hash) is emptied in place, as before.
   */
  private static async openChecked(options: LogIndexOptions): Promise<OpenedIndex> {
    mkdirSync(options.dir, { recursive: true });
    const dataFile = join(options.dir, 'data.mdb');
    const problem = lmdbFileDamage(dataFile);
    if (problem !== undefined) throw new ServerError(`${dataFile} ${problem}`);
    const root = open({
      path: options.dir,
      maxDbs: 2,
      compression: false,
      mapSize: LMDB_MAP_SIZE,
    });
    try {
      const entries = root.openDB<Uint8Array, Buffer>('entries', {
        keyEncoding: 'binary',
        encoding: 'binary',
      });
      const meta = root.openDB<IndexState, string>('meta', {});
      // A damaged page pointer along either edge fails here, and the index is rebuilt.
      readTreeEdges(entries);
      let state = meta.get(STATE_KEY) ?? EMPTY_STATE;
      if (!Number.isSafeInteger(state.height) || typeof state.hash !== 'string') {
        throw new ServerError(`${dataFile} holds an unreadable index state`);
      }
      const head = Number(options.chain.head().number);
      if (state.height > head) {
        throw new ServerError(
          `${dataFile} claims block ${state.height}, past the chain's head ${head}`,
        );
      }
      if (
        state.height >= 0 &&
        options.chain.getBlockByNumber(BigInt(state.height))?.hashHex !== state.hash
      ) {
        state = EMPTY_STATE;
        await commitLmdb(root, 'the log index', () => {
          entries.clearSync();
          meta.putSync(STATE_KEY, EMPTY_STATE);
        });
      }
      return { root, entries, meta, state };
    } catch (error) {
      await root.close();
      throw error;
    }
  }

  /** Every block up to this one is in the index; newer blocks must be read from the chain. */
  get indexedHeight(): bigint {
    return BigInt(this.height);
  }

  /**
   * Ascending numbers of the indexed blocks in `[from, to]` that may hold logs matching
   * `criteria` (blocks above `indexedHeight` are never returned).
   */
  candidateBlocks(criteria: LogCriteria, from: bigint, to: bigint): number[] {
    const first = Number(from);
    const last = Math.min(Number(to), this.height);
    if (first > last) return [];
    const groups: Uint8Array[][] = [];
    if (criteria.addresses !== undefined) {
      groups.push([...criteria.addresses].map((a) => prefix(KIND_ADDRESS, bytesOf(a))));
    }
    criteria.topics.forEach((topics, position) => {
      if (topics !== undefined) {
        groups.push([...topics].map((t) => prefix(KIND_TOPIC_0 + position, bytesOf(t))));
      }
    });
    if (groups.length === 0) groups.push([prefix(KIND_ANY)]);
    let result: number[] | undefined;
    try {
      for (const group of groups) {
        const numbers = this.blocksOf(group, first, last);
        result = result === undefined ? numbers : intersectSorted(result, numbers);
        if (result.length === 0) break;
      }
    } catch (error) {
      // The caller reads every block above `indexedHeight` from its receipts, now all of them.
      this.damaged(error);
      return [];
    }
    return result ?? [];
  }

  /** Resolves once every block published so far is written to the index. */
  async whenIdle(): Promise<void> {
    await this.writing;
  }

  /** Stops following the bus, waits for writes in flight and closes the environment. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    await this.writing;
    await this.opened?.root.close();
    this.opened = undefined;
  }

  private get env(): OpenedIndex {
    if (this.opened === undefined) throw new ServerError('the log index is closed');
    return this.opened;
  }

  /**
   * Damage found while running (an index read or write that failed for something other than
   * its disk). Damage inside the file passes the checks at open (its header and state are
   * whole), so without this the index would stay unreadable for good. The damaged environment
   * is dropped at once (queries read receipts from here on) and, the first time, deleted and
   * rebuilt from the chain in turn with the index's writes; damage found again after that leaves
   * the node without an index until its next start.
   */
  private damaged(error: unknown): void {
    const old = this.opened;
    this.opened = undefined;
    this.height = -1;
    const problem = error instanceof Error ? error.message : String(error);
    const closing = async () => {
      // A damaged environment may fail to close; it is deleted or left either way.
      await old?.root.close().catch(() => undefined);
    };
    if (this.rebuilt) {
      this.writing = this.writing.then(closing);
      if (old !== undefined) {
        this.onError(
          new ServerError(
            `log index damaged again after its rebuild: eth_getLogs reads receipts until the ` +
              `next start (${problem})`,
            { cause: error },
          ),
        );
      }
      return;
    }
    this.rebuilt = true;
    this.options.onRebuild?.(problem);
    this.writing = this.writing
      .then(async () => {
        await closing();
        rmSync(this.options.dir, { recursive: true, force: true });
        const opened = await LogIndex.openChecked(this.options);
        this.opened = opened;
        this.height = opened.state.height;
        await this.catchUp(Number(this.options.chain.head().number));
      })
      .catch((failure: unknown) => this.onError(failure));
  }

  /** A failed indexing step: the index is rebuilt after damage, else the next block tries again. */
  private writeFailed(error: unknown): void {
    if (indexDamage(error)) this.damaged(error);
    else this.onError(error);
  }

  private blocksOf(prefixes: readonly Uint8Array[], first: number, last: number): number[] {
    const numbers = new Set<number>();
    const { entries } = this.env;
    for (const p of prefixes) {
      const range = { start: entryKey(p, first), end: entryKey(p, last + 1) };
      for (const key of entries.getKeys(range)) numbers.add(decodeNumber(key));
    }
    const sorted = [...numbers];
    if (prefixes.length > 1) sorted.sort((a, b) => a - b);
    return sorted;
  }

  private follow(event: BlockCommittedEvent): void {
    const target = Number(event.block.number);
    this.writing = this.writing
      .then(() => this.catchUp(target, event))
      .catch((error: unknown) => this.writeFailed(error));
  }

  /**
   * Takes the entries of rewound blocks out, in turn with the indexing of blocks (a crash
   * between the chain's rewind and this one leaves an index past the head or of other blocks,
   * which the next open rebuilds).
   */
  private rewind(event: ChainRewoundEvent): void {
    const head = Number(event.head.number);
    this.writing = this.writing
      .then(async () => {
        const indexed = event.removed.filter(({ block }) => Number(block.number) <= this.height);
        if (indexed.length === 0 || this.opened === undefined) return;
        const state: IndexState = { height: head, hash: event.head.hashHex };
        // Lowered first: queries meanwhile read the receipts of the new blocks above the head.
        this.height = head;
        const { root, entries, meta } = this.env;
        await commitDeletes(root, this.dataFile, [entries, meta], 'the log index', () => {
          for (const { block, receipts } of indexed) {
            for (const key of blockKeys(Number(block.number), receipts)) entries.removeSync(key);
          }
          meta.putSync(STATE_KEY, state);
        });
      })
      .catch((error: unknown) => this.writeFailed(error));
  }

  /**
   * Indexes every block after `height` up to `target`, taking `event`'s block when given. The
   * keys are made receipt by receipt and written as asynchronous writes (`writeAsync`), in time
   * slices, and the new height is committed after them: a block of a thousand token transfers
   * was some 20 ms of the main thread in one piece. Entries of a block above the committed
   * height (a crash between the two) are never read, and indexing that block again writes them
   * again.
   */
  private async catchUp(target: number, event?: BlockCommittedEvent): Promise<void> {
    // No environment: dropped for damage (and logged); queries read receipts.
    if (this.opened === undefined) return;
    while (this.height < target) {
      const first = this.height + 1;
      const last = Math.min(target, first + CATCH_UP_BATCH - 1);
      const keys: Buffer[] = [];
      let hash = '';
      for (let number = first; number <= last; number++) {
        const fromEvent = event !== undefined && Number(event.block.number) === number;
        const { chain } = this.options;
        const block = fromEvent ? event.block : chain.getBlockByNumber(BigInt(number));
        const receipts = fromEvent ? event.receipts : chain.getBlockReceipts(BigInt(number));
        if (block === undefined || receipts === undefined) {
          throw new ServerError(`block ${number} or its receipts are missing`);
        }
        const prefixes = new Map<string, Uint8Array>();
        for (const receipt of receipts) {
          await this.pause();
          addPrefixes(prefixes, receipt);
        }
        keys.push(...keysOf(number, prefixes));
        hash = block.hashHex;
      }
      const state: IndexState = { height: last, hash };
      const entries = keys.map((key) => [key, PRESENT] as const);
      const env = this.env;
      await writeAsync(env.root, env.entries, entries, 'the log index', this.pause);
      await commitLmdb(env.root, 'the log index', () => env.meta.putSync(STATE_KEY, state));
      // Damage found meanwhile dropped this environment: its height means nothing any more.
      if (this.opened !== env) return;
      this.height = last;
    }
  }
}

function bytesOf(hex: string): Uint8Array {
  return hexToBytes(hex as PrefixedHexString);
}

/** What `checkLogIndex` needs of the chain: committed blocks' hashes and receipts. */
export interface IndexedChain {
  /** The chain's head now (read after the index, which never leads the chain). */
  head(): number;
  hashHexOf(number: number): string | undefined;
  receiptsOf(number: number): readonly ChainReceipt[] | undefined;
}

/**
 * Compares a log index with the chain (for `daemon check`): its file, its state (height not
 * past the head, the hash of that block) and its keys, exactly those the indexed blocks' logs
 * give. Opens the environment read-only, beside a running daemon if there is one: state and
 * keys are read in one synchronous step (one LMDB snapshot), and the chain's head only after
 * them, so a daemon indexing meanwhile cannot make the index look ahead of the chain.
 * Returns the problems found, empty when it is consistent, and the height it covers.
 */
export async function checkLogIndex(
  dir: string,
  chain: IndexedChain,
): Promise<{ height: number; problems: string[] }> {
  const dataFile = join(dir, 'data.mdb');
  const fileProblem = lmdbFileProblem(dataFile);
  if (fileProblem === LMDB_FILE_MISSING) return { height: -1, problems: [] };
  if (fileProblem !== undefined) return { height: -1, problems: [`${dataFile} ${fileProblem}`] };
  const root = open({ path: dir, maxDbs: 2, compression: false, readOnly: true });
  let state: IndexState;
  const stored: Buffer[] = [];
  try {
    const entries = root.openDB<Uint8Array, Buffer>('entries', {
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    state = root.openDB<IndexState, string>('meta', {}).get(STATE_KEY) ?? EMPTY_STATE;
    for (const key of entries.getKeys()) stored.push(Buffer.from(key));
  } finally {
    await root.close();
  }
  const head = chain.head();
  const claims = (problem: string) => ({ height: state.height, problems: [problem] });
  if (state.height > head) {
    return claims(`log index claims block ${state.height}, past the chain's head ${head}`);
  }
  if (state.height >= 0 && chain.hashHexOf(state.height) !== state.hash) {
    return claims(`log index was built for another chain (block ${state.height} differs)`);
  }
  const expected = new Set<string>();
  for (let number = 0; number <= state.height; number++) {
    for (const key of blockKeys(number, chain.receiptsOf(number) ?? [])) {
      expected.add(key.toString('hex'));
    }
  }
  let extra = 0;
  for (const key of stored) {
    if (!expected.delete(key.toString('hex')) && decodeNumber(key) <= state.height) extra++;
  }
  const problems: string[] = [];
  if (expected.size > 0) problems.push(`log index lacks ${expected.size} entries of its blocks`);
  if (extra > 0) problems.push(`log index holds ${extra} entries no log of its blocks gives`);
  return { height: state.height, problems };
}
