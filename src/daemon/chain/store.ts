/**
 * The chain's persistence: one LMDB environment under `<datadir>/chain`.
 *
 * Why this shape:
 * - The crash-safety unit is the block. Its RLP, its receipts, the hash and transaction indexes,
 *   the flat state and the new head go into ONE LMDB write transaction. LMDB commits are
 *   atomic, so after `kill -9` the store is exactly at the last committed block.
 * - The state-trie nodes a block wrote are committed just before that transaction, as batched
 *   asynchronous puts whose B-tree work runs on lmdb's write thread, not on the main thread that
 *   answers requests. Nodes are content-addressed and never change, so a crash between the two
 *   leaves only nodes nothing points to yet, and the head's stateRoot always resolves.
 * - Trie nodes are written during execution into an in-memory write-back layer
 *   (`TrieNodeOverlay`) and reach LMDB only with the block: awaiting a database write per trie
 *   operation was measured at ~140 tx/s, the per-block batch is an order of magnitude faster.
 * - Trie nodes are content-addressed and never deleted (archive), so the state at any past
 *   block is the trie opened at that block's stateRoot.
 * - Reads are synchronous (LMDB reads are memory-mapped), which keeps hot RPC paths cheap.
 * - Beside the trie, flat tables hold the head's state keyed as the trie keys it (hashed address,
 *   hashed address ‖ hashed slot → the trie's leaf), tagged with the state root they describe.
 *   They change in the block's own transaction, so in every snapshot they describe the head;
 *   a read is one lookup instead of a walk down the trie (`flat-state.ts`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { asBinary, open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import { ConflictError, ServerError } from '../../shared/errors.js';
import type { Pause } from '../time-slice.js';
import { commitDeletes, commitLmdb, writeAsync } from './lmdb-file.js';

/** Where a committed transaction is, with its sender (so readers need not recover it). */
export interface TxLocation {
  blockNumber: number;
  index: number;
  sender: Uint8Array;
}

export interface ChainHead {
  number: number;
  hash: Uint8Array;
}

/** Identity of the chain a store holds, checked on every open. */
export interface ChainIdentity {
  genesisHash: Uint8Array;
  chainId: bigint;
}

/** Everything one block adds to the store; committed atomically by {@link ChainStore.commitBlock}. */
export interface BlockWrite {
  number: number;
  hash: Uint8Array;
  /** RLP of `[block values, senders]`, see `block-record.ts`. */
  blockRecord: Uint8Array;
  receiptsRlp: Uint8Array;
  txHashes: Uint8Array[];
  senders: Uint8Array[];
  trieNodes: ReadonlyMap<string, Uint8Array>;
  /** How the flat tables change to describe this block's state. */
  flatState: FlatStateWrite;
}

/** A flat table entry: its key and the trie leaf it holds, or undefined to delete it. */
export type FlatEntry = readonly [key: Uint8Array, value: Uint8Array | undefined];

/**
 * A change of the flat state tables: applied in order (replace, cleared storage, accounts,
 * slots), then tagged with `stateRoot`.
 */
export interface FlatStateWrite {
  /** The state root the tables describe afterwards. */
  stateRoot: Uint8Array;
  /** Every entry goes first: the write holds the whole state (a build from the trie). */
  replace: boolean;
  /** Hashed addresses whose every storage entry goes before `slots` are applied. */
  clearedStorage: readonly Uint8Array[];
  /** keccak(address) → the account's RLP. */
  accounts: readonly FlatEntry[];
  /** keccak(address) ‖ keccak(slot) → the slot's RLP-encoded value. */
  slots: readonly FlatEntry[];
}

/**
 * Address space reserved for the memory map of an LMDB environment (not memory: pages count only
 * once touched). lmdb-js starts with a small map and doubles it as the file grows, and keeps every
 * previous map alive (readers may still point into it), so the pages of a growing database end
 * up resident two or three times over. Reserving the space up front means one map; past it the
 * map still grows on its own.
 */
export const LMDB_MAP_SIZE = 64 * 2 ** 30;

const HEAD_KEY = 'head';
const IDENTITY_KEY = 'identity';
const SNAPSHOTS_KEY = 'devSnapshots';
/** The flat tables' tag (in `flatAccounts`, whose other keys are 32 bytes long). */
const FLAT_ROOT_KEY = Buffer.from('stateRoot');
const HASH_BYTES = 32;

/** A development snapshot (`evm_snapshot`): its id and the block it returns to. */
export interface ChainSnapshot {
  id: number;
  blockNumber: number;
  /** The block clock's offset from the wall clock then, in seconds (decimal). */
  timeOffset: string;
}

/** The snapshots taken and the id the next one gets (ids never repeat, as in Hardhat). */
export interface ChainSnapshots {
  nextId: number;
  taken: ChainSnapshot[];
}

/** A block {@link ChainStore.rewindTo} takes out: where it is indexed. */
export interface RemovedBlock {
  number: number;
  hash: Uint8Array;
  txHashes: readonly Uint8Array[];
}

/** A value already encoded for its table (lmdb's `asBinary`). */
type Encoded = ReturnType<typeof asBinary>;
type EncodedEntry = readonly [key: Buffer, value: Encoded];
/** lmdb's encoder of a table's values (its `encoder`, which lmdb's types leave out of `Database`). */
interface ValueEncoder {
  encode(value: unknown): Uint8Array;
}

const NO_PAUSE: Pause = () => undefined;

function putOrRemove(
  db: Database<Uint8Array, Buffer>,
  key: Uint8Array,
  value: Uint8Array | undefined,
): void {
  if (value === undefined) db.removeSync(Buffer.from(key));
  else db.putSync(Buffer.from(key), value);
}

interface FlatTables {
  accounts: Database<Uint8Array, Buffer>;
  storage: Database<Uint8Array, Buffer>;
}

/** The flat state tables; undefined when read-only and absent (lmdb then gives no database). */
function flatTables(root: RootDatabase): FlatTables | undefined {
  const binary = { keyEncoding: 'binary' as const, encoding: 'binary' as const };
  const accounts = root.openDB<Uint8Array, Buffer>('flatAccounts', binary);
  const storage = root.openDB<Uint8Array, Buffer>('flatStorage', binary);
  return accounts === undefined || storage === undefined ? undefined : { accounts, storage };
}

/** Trie node keys are hex strings; stored as their bytes, half the size. */
function nodeKey(key: string): Buffer {
  return Buffer.from(key, 'hex');
}

/** The flat storage keys of the account with hashed address `prefix` span this range. */
function storageRange(prefix: Uint8Array): { start: Buffer; end: Buffer } {
  return {
    start: Buffer.from(prefix),
    end: Buffer.concat([prefix, Buffer.alloc(HASH_BYTES + 1, 0xff)]),
  };
}

export class ChainStore {
  private constructor(
    private readonly path: string,
    private readonly root: RootDatabase,
    private readonly blocks: Database<Uint8Array, number>,
    private readonly receipts: Database<Uint8Array, number>,
    private readonly blockNumbers: Database<number, Buffer>,
    private readonly txLocations: Database<[number, number, Uint8Array], Buffer>,
    private readonly trieNodes: Database<Uint8Array, Buffer>,
    private readonly meta: Database<unknown, string>,
    /** Undefined in a store opened read-only that was written before they existed. */
    private readonly flat: FlatTables | undefined,
  ) {}

  /**
   * Opens (creating if needed) the store of a data directory; `readOnly` opens an existing one
   * beside a running writer (LMDB readers see a consistent snapshot and never block it).
   * Check the file first (`store-integrity.ts`): lmdb trusts what it maps.
   */
  static open(dataDir: string, options: { readOnly?: boolean } = {}): ChainStore {
    const path = join(dataDir, 'chain');
    if (options.readOnly !== true) mkdirSync(path, { recursive: true });
    const root = open({
      path,
      maxDbs: 12,
      compression: false,
      mapSize: LMDB_MAP_SIZE,
      readOnly: options.readOnly === true,
    });
    const binary = { encoding: 'binary' as const };
    return new ChainStore(
      path,
      root,
      root.openDB<Uint8Array, number>('blocks', binary),
      root.openDB<Uint8Array, number>('receipts', binary),
      root.openDB<number, Buffer>('blockNumbers', { keyEncoding: 'binary' }),
      root.openDB<[number, number, Uint8Array], Buffer>('txLocations', { keyEncoding: 'binary' }),
      root.openDB<Uint8Array, Buffer>('trieNodes', { keyEncoding: 'binary', encoding: 'binary' }),
      root.openDB<unknown, string>('meta', {}),
      flatTables(root),
    );
  }

  /** The chain this store holds, or undefined for a fresh store. */
  identity(): ChainIdentity | undefined {
    const stored = this.meta.get(IDENTITY_KEY) as
      { genesisHash: Uint8Array; chainId: string } | undefined;
    if (stored === undefined) return undefined;
    return { genesisHash: new Uint8Array(stored.genesisHash), chainId: BigInt(stored.chainId) };
  }

  head(): ChainHead | undefined {
    const stored = this.meta.get(HEAD_KEY) as { number: number; hash: Uint8Array } | undefined;
    if (stored === undefined) return undefined;
    return { number: stored.number, hash: new Uint8Array(stored.hash) };
  }

  blockRecord(number: number): Uint8Array | undefined {
    return this.blocks.getBinary(number);
  }

  receiptsRlp(number: number): Uint8Array | undefined {
    return this.receipts.getBinary(number);
  }

  blockNumberOf(hash: Uint8Array): number | undefined {
    return this.blockNumbers.get(Buffer.from(hash));
  }

  txLocation(hash: Uint8Array): TxLocation | undefined {
    const stored = this.txLocations.get(Buffer.from(hash));
    if (stored === undefined) return undefined;
    return { blockNumber: stored[0], index: stored[1], sender: new Uint8Array(stored[2]) };
  }

  /**
   * Makes the next read see every transaction committed so far. Reads otherwise share a snapshot
   * until the event loop's next turn, which is too late for a thread that has just learnt of a
   * block another thread committed.
   */
  startFreshSnapshot(): void {
    this.root.resetReadTxn();
  }

  /** Synchronous node read for the trie layers above. */
  readonly readTrieNode = (key: string): Uint8Array | undefined =>
    this.trieNodes.getBinary(nodeKey(key));

  /** The state root the flat tables describe; undefined before they were first built. */
  flatStateRoot(): Uint8Array | undefined {
    return this.flat?.accounts.getBinary(FLAT_ROOT_KEY);
  }

  /** The flat tables, which every store has unless opened read-only before they existed. */
  private tables(): FlatTables {
    if (this.flat === undefined) throw new ServerError('the chain store has no flat state tables');
    return this.flat;
  }

  /** The flat account entry (RLP) at `hashedAddress`. */
  flatAccount(hashedAddress: Uint8Array): Uint8Array | undefined {
    return this.tables().accounts.getBinary(Buffer.from(hashedAddress));
  }

  /** The flat storage entry (RLP-encoded value) at `hashedAddress ‖ hashedSlot`. */
  flatSlot(hashedAddress: Uint8Array, hashedSlot: Uint8Array): Uint8Array | undefined {
    return this.tables().storage.getBinary(Buffer.concat([hashedAddress, hashedSlot]));
  }

  /** Every flat account entry, by hashed address (checks and tests compare it with the trie). */
  *flatAccountEntries(): Generator<[Uint8Array, Uint8Array]> {
    for (const { key, value } of this.tables().accounts.getRange()) {
      if (key.length === HASH_BYTES) yield [new Uint8Array(key), new Uint8Array(value)];
    }
  }

  /** Every flat storage entry of one account, by hashed slot. */
  *flatStorageEntries(hashedAddress: Uint8Array): Generator<[Uint8Array, Uint8Array]> {
    for (const { key, value } of this.tables().storage.getRange(storageRange(hashedAddress))) {
      yield [new Uint8Array(key.subarray(HASH_BYTES)), new Uint8Array(value)];
    }
  }

  /** Number of flat storage entries, over all accounts. */
  flatStorageCount(): number {
    return this.tables().storage.getCount();
  }

  /**
   * Replaces the flat tables by `write` (a build from the trie) in a transaction of its own,
   * for a store whose tables do not describe its head (created before they existed).
   */
  async writeFlatState(write: FlatStateWrite): Promise<void> {
    const { accounts, storage } = this.tables();
    await this.commitDeletes([accounts, storage], 'the flat state tables', () =>
      this.applyFlatState(write),
    );
  }

  /**
   * Writes the genesis block and records which chain this store holds, in one transaction.
   * Throws `ConflictError` if the store already holds a chain.
   */
  async commitGenesis(write: BlockWrite, identity: ChainIdentity): Promise<void> {
    if (this.identity() !== undefined) throw new ConflictError('chain store already initialised');
    await this.commit(write, await this.encodeTxLocations(write, NO_PAUSE), identity);
  }

  /**
   * Persists one block: its trie nodes first, then atomically block, receipts, indexes, flat
   * state and the new head. Everything but that transaction's callback lets the event loop run
   * at `pause`. Rejects with `StorageError` when the disk is full or failing; then the block is
   * not stored (some of its nodes may be, unreferenced).
   */
  async commitBlock(write: BlockWrite, pause: Pause = NO_PAUSE): Promise<void> {
    const nodes = (function* () {
      for (const [key, value] of write.trieNodes) yield [nodeKey(key), value] as const;
    })();
    await writeAsync(this.root, this.trieNodes, nodes, `block ${write.number}'s trie nodes`, pause);
    await this.commit(write, await this.encodeTxLocations(write, pause), undefined);
  }

  /**
   * The `txLocations` entries of `write`, their values encoded by that table's own encoder, so
   * the bytes stored are those a put of the values would store. Encoding them inside the
   * transaction callback was most of its main-thread time (some 20 ms for a block of 1 000).
   */
  private async encodeTxLocations(write: BlockWrite, pause: Pause): Promise<EncodedEntry[]> {
    const { encoder } = this.txLocations as unknown as { encoder: ValueEncoder };
    const entries: EncodedEntry[] = [];
    for (const [index, hash] of write.txHashes.entries()) {
      await pause();
      // The encoder answers a view of a buffer it writes on; the copy is the entry's own.
      const value = new Uint8Array(encoder.encode([write.number, index, write.senders[index]]));
      entries.push([Buffer.from(hash), asBinary(value)]);
    }
    return entries;
  }

  /**
   * One transaction of `write`, with its trie nodes when it is the genesis (a fresh store holds
   * nothing before it). Rejects with `StorageError` when the disk is full or failing; then
   * nothing of it is stored.
   */
  private async commit(
    write: BlockWrite,
    txLocations: readonly EncodedEntry[],
    identity: ChainIdentity | undefined,
  ): Promise<void> {
    const encodedTxLocations = this.txLocations as unknown as Database<Encoded, Buffer>;
    await commitLmdb(this.root, `block ${write.number} to the chain store`, () => {
      if (identity !== undefined) {
        for (const [key, value] of write.trieNodes) this.trieNodes.putSync(nodeKey(key), value);
      }
      this.blocks.putSync(write.number, write.blockRecord);
      this.receipts.putSync(write.number, write.receiptsRlp);
      this.blockNumbers.putSync(Buffer.from(write.hash), write.number);
      for (const [key, value] of txLocations) encodedTxLocations.putSync(key, value);
      if (identity !== undefined) {
        this.meta.putSync(IDENTITY_KEY, {
          genesisHash: identity.genesisHash,
          chainId: identity.chainId.toString(),
        });
      }
      this.meta.putSync(HEAD_KEY, { number: write.number, hash: write.hash });
      this.applyFlatState(write.flatState);
    });
  }

  /** Applies `write` inside the caller's transaction. */
  private applyFlatState(write: FlatStateWrite): void {
    const { accounts, storage } = this.tables();
    const removeAll = (
      db: Database<Uint8Array, Buffer>,
      range?: { start: Buffer; end: Buffer },
    ) => {
      for (const key of [...db.getKeys(range)]) db.removeSync(key);
    };
    if (write.replace) {
      removeAll(accounts);
      removeAll(storage);
    }
    for (const prefix of write.clearedStorage) removeAll(storage, storageRange(prefix));
    for (const [key, value] of write.accounts) putOrRemove(accounts, key, value);
    for (const [key, value] of write.slots) putOrRemove(storage, key, value);
    accounts.putSync(FLAT_ROOT_KEY, write.stateRoot);
  }

  /** See `commitDeletes`: a transaction that deletes from `trees`. */
  private commitDeletes(
    trees: ReadonlyArray<{ getStats(): unknown }>,
    what: string,
    write: () => void,
  ): Promise<void> {
    return commitDeletes(this.root, join(this.path, 'data.mdb'), trees, what, write);
  }

  /** The development snapshots (`evm_snapshot`), kept with the chain they point into. */
  snapshots(): ChainSnapshots {
    return (this.meta.get(SNAPSHOTS_KEY) as ChainSnapshots | undefined) ?? { nextId: 1, taken: [] };
  }

  async saveSnapshots(snapshots: ChainSnapshots): Promise<void> {
    await commitLmdb(this.root, 'the development snapshots', () => {
      this.meta.putSync(SNAPSHOTS_KEY, snapshots);
    });
  }

  /**
   * Takes `removed` (every block above `head`) out of the store in ONE transaction: records,
   * receipts and both indexes, with `head` as the new head, the snapshots left and the flat
   * tables rebuilt for it (`flatState`), so a crash leaves either the whole old chain or the
   * whole shorter one. Trie nodes stay: they are content-addressed, and the kept blocks' roots
   * share most of them.
   */
  async rewindTo(
    head: ChainHead,
    removed: readonly RemovedBlock[],
    snapshots: ChainSnapshots,
    flatState: FlatStateWrite,
  ): Promise<void> {
    const trees = [
      this.blocks,
      this.receipts,
      this.blockNumbers,
      this.txLocations,
      this.meta,
      this.tables().accounts,
      this.tables().storage,
    ];
    await this.commitDeletes(trees, `the rewind to block ${head.number}`, () => {
      for (const block of removed) {
        for (const txHash of block.txHashes) this.txLocations.removeSync(Buffer.from(txHash));
        this.blockNumbers.removeSync(Buffer.from(block.hash));
        this.blocks.removeSync(block.number);
        this.receipts.removeSync(block.number);
      }
      this.meta.putSync(HEAD_KEY, { number: head.number, hash: head.hash });
      this.meta.putSync(SNAPSHOTS_KEY, snapshots);
      this.applyFlatState(flatState);
    });
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
