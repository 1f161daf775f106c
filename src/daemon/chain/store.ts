/**
 * The chain's persistence: one LMDB environment under `<datadir>/chain`.
 *
 * Why this shape:
 * - The crash-safety unit is the block. Its RLP, its receipts, the hash and transaction indexes,
 *   the new head and every state-trie node written while executing it go into ONE LMDB write
 *   transaction. LMDB commits are atomic, so after `kill -9` the store is exactly at the last
 *   committed block, and that block's stateRoot resolves in the node table.
 * - Trie nodes are written during execution into an in-memory write-back layer
 *   (`TrieNodeOverlay`) and reach LMDB only with the block: awaiting a database write per trie
 *   operation was measured at ~140 tx/s, the per-block batch is an order of magnitude faster.
 * - Trie nodes are content-addressed and never deleted (archive), so the state at any past
 *   block is the trie opened at that block's stateRoot.
 * - Reads are synchronous (LMDB reads are memory-mapped), which keeps hot RPC paths cheap.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import { ConflictError } from '../../shared/errors.js';
import { commitLmdb, extendForDeletes } from './lmdb-file.js';

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

/** Trie node keys are hex strings; stored as their bytes, half the size. */
function nodeKey(key: string): Buffer {
  return Buffer.from(key, 'hex');
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
      maxDbs: 8,
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

  /**
   * Writes the genesis block and records which chain this store holds, in one transaction.
   * Throws `ConflictError` if the store already holds a chain.
   */
  async commitGenesis(write: BlockWrite, identity: ChainIdentity): Promise<void> {
    if (this.identity() !== undefined) throw new ConflictError('chain store already initialised');
    await this.commit(write, identity);
  }

  /** Persists one block atomically: block, receipts, indexes, trie nodes and the new head. */
  async commitBlock(write: BlockWrite): Promise<void> {
    await this.commit(write, undefined);
  }

  /** Rejects with `StorageError` when the disk is full or failing; then nothing of it is stored. */
  private async commit(write: BlockWrite, identity: ChainIdentity | undefined): Promise<void> {
    await commitLmdb(this.root, `block ${write.number} to the chain store`, () => {
      for (const [key, value] of write.trieNodes) this.trieNodes.putSync(nodeKey(key), value);
      this.blocks.putSync(write.number, write.blockRecord);
      this.receipts.putSync(write.number, write.receiptsRlp);
      this.blockNumbers.putSync(Buffer.from(write.hash), write.number);
      write.txHashes.forEach((hash, index) => {
        this.txLocations.putSync(Buffer.from(hash), [write.number, index, write.senders[index]]);
      });
      if (identity !== undefined) {
        this.meta.putSync(IDENTITY_KEY, {
          genesisHash: identity.genesisHash,
          chainId: identity.chainId.toString(),
        });
      }
      this.meta.putSync(HEAD_KEY, { number: write.number, hash: write.hash });
    });
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
   * receipts and both indexes, with `head` as the new head and the snapshots left, so a crash
   * leaves either the whole old chain or the whole shorter one. Trie nodes stay: they are
   * content-addressed, and the kept blocks' roots share most of them.
   */
  async rewindTo(
    head: ChainHead,
    removed: readonly RemovedBlock[],
    snapshots: ChainSnapshots,
  ): Promise<void> {
    extendForDeletes(join(this.path, 'data.mdb'), this.root, [
      this.blocks,
      this.receipts,
      this.blockNumbers,
      this.txLocations,
      this.meta,
    ]);
    await commitLmdb(this.root, `the rewind to block ${head.number}`, () => {
      for (const block of removed) {
        for (const txHash of block.txHashes) this.txLocations.removeSync(Buffer.from(txHash));
        this.blockNumbers.removeSync(Buffer.from(block.hash));
        this.blocks.removeSync(block.number);
        this.receipts.removeSync(block.number);
      }
      this.meta.putSync(HEAD_KEY, { number: head.number, hash: head.hash });
      this.meta.putSync(SNAPSHOTS_KEY, snapshots);
    });
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
