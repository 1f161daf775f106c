/**
 * Reads of the committed chain: blocks, transactions, receipts, account state at any height,
 * proofs and calls. The block producer (`Chain`) is one; every call thread (`call-threads/`)
 * holds another over the same database.
 *
 * Why it is shaped this way:
 * - Reads at any height open the trie at that block's stateRoot over the committed node table;
 *   since nodes are never deleted the head and every past block are equally readable, and no
 *   reader ever touches the producer's working state. Calls run on private overlays and never
 *   persist.
 * - Hot reads are cached: recent blocks and receipts, and accounts of the head state (dropped
 *   whenever the head moves), because `eth_getBalance` at 'latest' dominates RPC load.
 * - A reader on another thread follows the producer through a {@link SharedHead}: whenever the
 *   published number differs from its own head it starts a fresh database snapshot and moves
 *   to the new block, before answering anything. Every read path goes through that check, so
 *   no thread answers from a snapshot older than a block another thread has already shown.
 */
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { getMerkleStateProof } from '@ethereumjs/statemanager';
import type { Proof } from '@ethereumjs/statemanager';
import { ValueEncoding, setLengthLeft } from '@ethereumjs/util';
import type { Account, Address } from '@ethereumjs/util';
import { initCrypto } from '../crypto/wasm-crypto.js';
import { DamagedStoreError, NotFoundError, ServerError } from '../../shared/errors.js';
import { nextBaseFee } from './base-fee.js';
import { blockFees, headerFees, type BlockFees } from './block-fees.js';
import {
  decodeBlockOutline,
  decodeBlockRecord,
  decodeRecordTransaction,
  outlineOfStored,
  recordHashes,
  recordHeaderFees,
} from './block-record.js';
import { createAccessList, type AccessListResult } from './access-list.js';
import { CallVmCache, estimateGas, executeCall, runCall } from './call.js';
import type { CallEnvironment, CallOutcome, CallRequest, CallResult } from './call.js';
import {
  simulate,
  simulatedOf,
  type SimulatedBlock,
  type SimulatedBlockData,
  type SimulationRequest,
} from './simulate.js';
import { createChainCommon } from './common.js';
import { FlatStateView } from './flat-state.js';
import { FlatStateManager } from './flat-state-manager.js';
import { LruCache, type CacheCounts, type IdleLimit } from './lru-cache.js';
import { decodeReceipts, logsOfReceipts, receiptOf, receiptsOfBlock } from './receipt-codec.js';
import {
  blockRetainedBytes,
  outlineRetainedBytes,
  receiptsRetainedBytes,
} from './retained-size.js';
import { SharedHead } from './shared-head.js';
import { ChainStore } from './store.js';
import { TrieNodeOverlay, type TrieNodeReader } from './trie-node-overlay.js';
import type { AccountReads } from '../txpool/types.js';
import type {
  BlockOutline,
  ChainLog,
  ChainReceipt,
  ChainTransaction,
  StoredBlock,
} from './types.js';

/** The chain's fixed parameters, as the block producer resolved them at start-up. */
export interface ChainParameters {
  chainId: bigint;
  /** Gas limit of every block. */
  blockGasLimit: bigint;
  /** Minimum gas price (wei), also the floor of the base fee. */
  minGasPrice: bigint;
  /** Most gas `call` and `estimateGas` may use (`--json-rpc.gas-cap`). */
  callGasCap: bigint;
}

/** Memory budgets (bytes, estimated) of the recent-block and recent-receipt caches. */
export interface ReaderCacheBytes {
  blocks: number;
  receipts: number;
}

/** Where a reader's calls run when not on its own thread (the call threads, `call-threads/`). */
export interface CallExecution {
  /**
   * Runs a call on the state after committed block `blockNumber`. `caller` names who asked (an
   * opaque key the API derives from the connection), for fair turns and per-client bounds.
   */
  call(request: CallRequest, blockNumber: bigint, caller?: string): Promise<CallOutcome>;
  estimateGas(request: CallRequest, blockNumber: bigint, caller?: string): Promise<bigint>;
  createAccessList(
    request: CallRequest,
    blockNumber: bigint,
    caller?: string,
  ): Promise<AccessListResult>;
  /** Simulates blocks of calls (`simulate.ts`); the blocks come back as plain data. */
  simulate(
    request: SimulationRequest,
    blockNumber: bigint,
    caller?: string,
  ): Promise<SimulatedBlockData[]>;
}

export interface FollowerOptions {
  dataDir: string;
  parameters: ChainParameters;
  /** The producer's {@link SharedHead} buffer. */
  sharedHead: SharedArrayBuffer;
  cacheBytes: ReaderCacheBytes;
}

const HEAD_ACCOUNTS = 100_000;

/** What the store keeps of a block apart: its record (header, body, senders) and its receipts. */
type StoredPart = 'record' | 'receipts';

const DAMAGED_PART: Record<StoredPart, string> = {
  record: 'a damaged record',
  receipts: 'damaged receipts',
};

/**
 * Decodes what the store holds of block `number`. The node wrote it, so only damage (a bad
 * disk, a stray write) makes it undecodable: that is reported as such, naming the block and
 * what to do, instead of as an internal error.
 */
function decodeStored<T>(number: bigint | number, part: StoredPart, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    throw new DamagedStoreError(
      `the chain store holds ${DAMAGED_PART[part]} of block ${number}, which cannot be read. ` +
        'node-cli daemon check lists what is damaged; restore the data directory from a backup',
      { cause: error },
    );
  }
}

/**
 * Blocks and receipts (and the logs kept for `eth_getLogs`) nobody asked for in this long leave
 * their caches at the next insertion: readers mostly want the last blocks, and a block read
 * again later comes from the store in microseconds.
 */
export const READ_CACHE_IDLE: IdleLimit = { ms: 2 * 60_000 };

export function openTrie(
  common: Common,
  db: TrieNodeOverlay,
  root?: Uint8Array,
): MerklePatriciaTrie {
  return new MerklePatriciaTrie({
    db,
    root,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
  });
}

/** What the EVM's BLOCKHASH needs: hashes of committed blocks by number. */
export function blockHashSource(
  hashOf: (number: bigint) => Uint8Array | undefined,
): EVMMockBlockchainInterface {
  const source: EVMMockBlockchainInterface = {
    getBlock: async (number: number) => {
      const hash = hashOf(BigInt(number));
      if (hash === undefined) throw new NotFoundError(`block ${number} not found`);
      return { hash: () => hash };
    },
    putBlock: async () => {},
    shallowCopy: () => source,
  };
  return source;
}

/**
 * Memory for block outlines (`getBlockOutline`): about twenty blocks of 1 000 transactions,
 * whose outlines weigh a twentieth of the built blocks.
 */
const OUTLINE_CACHE_BYTES = 2 * 2 ** 20;

export class ChainReader {
  private readonly blocksByNumber: LruCache<bigint, StoredBlock>;
  private readonly outlinesByNumber = new LruCache<bigint, BlockOutline>(
    OUTLINE_CACHE_BYTES,
    outlineRetainedBytes,
    READ_CACHE_IDLE,
  );
  private readonly receiptsByNumber: LruCache<bigint, ChainReceipt[]>;
  private readonly headAccounts = new LruCache<string, Account | null>(HEAD_ACCOUNTS);
  private headState: FlatStateManager;
  private readonly flat: FlatStateView;
  private readonly callVms = new CallVmCache();
  private closed = false;
  private callExecution: CallExecution | undefined;
  /** The producer's rewind count this reader's caches belong to (followers only). */
  private rewinds = 0;

  protected constructor(
    readonly common: Common,
    protected readonly store: ChainStore,
    readonly parameters: ChainParameters,
    private headBlock: StoredBlock,
    cacheBytes: ReaderCacheBytes,
    /** Set on readers that follow a producer on another thread. */
    private readonly followed?: SharedHead,
  ) {
    this.blocksByNumber = new LruCache(cacheBytes.blocks, blockRetainedBytes, READ_CACHE_IDLE);
    this.receiptsByNumber = new LruCache<bigint, ChainReceipt[]>(
      cacheBytes.receipts,
      receiptsRetainedBytes,
      READ_CACHE_IDLE,
    );
    this.flat = new FlatStateView(store, common.customCrypto.keccak256!);
    this.headState = this.openState(headBlock.block.header.stateRoot);
    this.blocksByNumber.set(headBlock.number, headBlock);
    if (followed !== undefined) this.rewinds = followed.readBoth().rewinds;
  }

  /**
   * A reader for a thread other than the producer's, over the same data directory, starting at
   * the head the producer has published. The producer must have opened the chain first.
   *
   * The store is opened read-only: opened for writing, lmdb opens each table in a write
   * transaction of its own, which waits for LMDB's one writer lock. The producer's batched
   * writes hold that lock while they wait for the main thread to run their callbacks, so a
   * thread starting then waited for the main thread, and a main thread waiting for its threads
   * (Node's diagnostic report, `debug_stacks`, waits for every thread to answer) never came:
   * the daemon stopped answering (docs/architecture.md).
   */
  static async openFollower(options: FollowerOptions): Promise<ChainReader> {
    await initCrypto();
    const common = createChainCommon(options.parameters.chainId);
    const store = ChainStore.open(options.dataDir, { readOnly: true });
    const followed = new SharedHead(options.sharedHead);
    const record = store.blockRecord(Number(followed.read()));
    if (record === undefined) {
      await store.close();
      throw new ServerError(`block ${followed.read()} is not in the chain store`);
    }
    return new ChainReader(
      common,
      store,
      options.parameters,
      decodeStored(followed.read(), 'record', () => decodeBlockRecord(record, common)),
      options.cacheBytes,
      followed,
    );
  }

  get chainId(): bigint {
    return this.parameters.chainId;
  }

  get genesisHash(): Uint8Array {
    return this.store.identity()!.genesisHash;
  }

  /** Minimum gas price (wei), also the floor of the base fee. */
  get minGasPrice(): bigint {
    return this.parameters.minGasPrice;
  }

  blockGasLimit(): bigint {
    return this.parameters.blockGasLimit;
  }

  head(): StoredBlock {
    if (this.followed !== undefined) this.follow(this.followed);
    return this.headBlock;
  }

  /** Base fee of the next block. */
  nextBaseFee(): bigint {
    const header = this.head().block.header;
    return nextBaseFee(
      {
        baseFeePerGas: header.baseFeePerGas ?? 0n,
        gasUsed: header.gasUsed,
        gasLimit: header.gasLimit,
      },
      this.minGasPrice,
    );
  }

  getBlockByNumber(number: bigint): StoredBlock | undefined {
    if (number < 0n || number > this.head().number) return undefined;
    const cached = this.blocksByNumber.get(number);
    if (cached !== undefined) return cached;
    const record = this.store.blockRecord(Number(number));
    if (record === undefined) return undefined;
    const stored = decodeStored(number, 'record', () => decodeBlockRecord(record, this.common));
    this.blocksByNumber.set(number, stored);
    return stored;
  }

  getBlockByHash(hash: Uint8Array): StoredBlock | undefined {
    const number = this.numberOfBlock(hash);
    return number === undefined ? undefined : this.getBlockByNumber(number);
  }

  /** The number of the committed block whose hash is `hash`, if there is one. */
  private numberOfBlock(hash: Uint8Array): bigint | undefined {
    this.head();
    const number = this.store.blockNumberOf(hash);
    return number === undefined ? undefined : BigInt(number);
  }

  /**
   * Block `number` without its transactions' bodies; undefined above the head. From the block
   * when it is cached built; otherwise from the stored record, building only the header and
   * hashing each transaction's bytes: `eth_getBlockByNumber(n, false)` on blocks of 1 428
   * transfers took 65–165 ms building them whole, when its answer lists only their hashes.
   */
  getBlockOutline(number: bigint): BlockOutline | undefined {
    if (number < 0n || number > this.head().number) return undefined;
    const cached = this.outlinesByNumber.get(number);
    if (cached !== undefined) return cached;
    const stored = this.blocksByNumber.peek(number);
    let outline: BlockOutline;
    if (stored !== undefined) outline = outlineOfStored(stored);
    else {
      const record = this.store.blockRecord(Number(number));
      if (record === undefined) return undefined;
      outline = decodeStored(number, 'record', () => decodeBlockOutline(record, this.common));
    }
    this.outlinesByNumber.set(number, outline);
    return outline;
  }

  getBlockOutlineByHash(hash: Uint8Array): BlockOutline | undefined {
    const number = this.numberOfBlock(hash);
    return number === undefined ? undefined : this.getBlockOutline(number);
  }

  getTransaction(hash: Uint8Array): ChainTransaction | undefined {
    this.head();
    const location = this.store.txLocation(hash);
    if (location === undefined) return undefined;
    return this.transactionAt(BigInt(location.blockNumber), location.index);
  }

  /**
   * Transaction `index` of block `number`: from the block when it is cached built; otherwise
   * built alone from the stored record. Looked up by hash, a transaction of a block of 1 428
   * transfers took 20–90 ms when the whole block was built for it.
   */
  private transactionAt(number: bigint, index: number): ChainTransaction | undefined {
    // A block being committed is in the store before it is the head: not visible yet.
    if (number > this.head().number) return undefined;
    const stored = this.blocksByNumber.peek(number);
    if (stored !== undefined) {
      const tx = stored.block.transactions[index];
      if (tx === undefined) return undefined;
      const { hash: blockHash, senders } = stored;
      const blockTimestamp = stored.block.header.timestamp;
      return { tx, blockNumber: number, blockHash, blockTimestamp, index, sender: senders[index] };
    }
    const record = this.store.blockRecord(Number(number));
    const found =
      record &&
      decodeStored(number, 'record', () => decodeRecordTransaction(record, index, this.common));
    return found && { ...found, blockNumber: number, index };
  }

  getBlockReceipts(number: bigint): ChainReceipt[] | undefined {
    const cached = this.receiptsByNumber.get(number);
    if (cached !== undefined) return cached;
    const stored = this.getBlockByNumber(number);
    const encoded = this.store.receiptsRlp(Number(number));
    if (stored === undefined || encoded === undefined) return undefined;
    const receipts = decodeStored(number, 'receipts', () =>
      receiptsOfBlock(stored, decodeReceipts(encoded)),
    );
    this.receiptsByNumber.set(number, receipts);
    return receipts;
  }

  /**
   * The logs of block `number` in block order; undefined above the head. From the block's
   * receipts when they are cached; otherwise from the stored records without building the
   * block's transactions, of which a log needs only the hash (`eth_getLogs` over many blocks
   * spent most of its time building them).
   */
  getBlockLogs(number: bigint): ChainLog[] | undefined {
    if (number < 0n || number > this.head().number) return undefined;
    const cached = this.receiptsByNumber.get(number);
    if (cached !== undefined) return cached.flatMap((receipt) => receipt.logs);
    const record = this.store.blockRecord(Number(number));
    const encoded = this.store.receiptsRlp(Number(number));
    if (record === undefined || encoded === undefined) return undefined;
    const hashes = decodeStored(number, 'record', () => recordHashes(record));
    return decodeStored(number, 'receipts', () => logsOfReceipts(number, encoded, hashes));
  }

  /**
   * The fee facts of block `number`; undefined above the head. From the cached block and
   * receipts when there are; otherwise from the stored records, without building the block's
   * transactions (that took `eth_feeHistory` about 25 ms per full block).
   */
  getBlockFees(number: bigint): BlockFees | undefined {
    if (number < 0n || number > this.head().number) return undefined;
    const header = this.blocksByNumber.get(number)?.block.header;
    const receipts = this.receiptsByNumber.get(number);
    if (header !== undefined && receipts !== undefined) {
      return blockFees(headerFees(header), receipts);
    }
    const record = this.store.blockRecord(Number(number));
    const encoded = this.store.receiptsRlp(Number(number));
    if (record === undefined || encoded === undefined) return undefined;
    const fees = decodeStored(number, 'record', () => recordHeaderFees(record));
    return blockFees(
      fees,
      decodeStored(number, 'receipts', () => decodeReceipts(encoded)),
    );
  }

  /**
   * From the block's receipts when they or the block are cached; otherwise from the stored
   * receipts and the transaction built alone (a receipt in a block of 1 428 transfers took
   * 36–141 ms when the whole block was built for it).
   */
  getReceipt(hash: Uint8Array): ChainReceipt | undefined {
    this.head();
    const location = this.store.txLocation(hash);
    if (location === undefined) return undefined;
    const number = BigInt(location.blockNumber);
    const { index } = location;
    if (number > this.head().number) return undefined;
    if (this.receiptsByNumber.has(number) || this.blocksByNumber.has(number)) {
      return this.getBlockReceipts(number)?.[index];
    }
    const encoded = this.store.receiptsRlp(location.blockNumber);
    const placed = this.transactionAt(number, index);
    if (encoded === undefined || placed === undefined) return undefined;
    return decodeStored(number, 'receipts', () => {
      const records = decodeReceipts(encoded);
      let firstLogIndex = 0;
      for (let before = 0; before < index; before++) firstLogIndex += records[before].logs.length;
      return receiptOf(placed, records[index], firstLogIndex);
    });
  }

  /** The account at the end of block `blockNumber`, or undefined if it does not exist. */
  async getAccount(address: Address, blockNumber: bigint): Promise<Account | undefined> {
    if (blockNumber !== this.head().number) return this.stateAt(blockNumber).getAccount(address);
    const key = address.toString();
    const cached = this.headAccounts.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const state = this.headState;
    const account = await state.getAccount(address);
    if (state === this.headState) this.headAccounts.set(key, account ?? null);
    return account;
  }

  /**
   * The balance at the head if the head-account cache holds the account (`addressHex` in any
   * case): lets `eth_getBalance` answer without a state read or a promise.
   */
  cachedHeadBalance(addressHex: string, blockNumber: bigint): bigint | undefined {
    if (blockNumber !== this.head().number) return undefined;
    const cached = this.headAccounts.get(addressHex.toLowerCase());
    return cached === undefined ? undefined : (cached?.balance ?? 0n);
  }

  async getBalance(address: Address, blockNumber: bigint = this.head().number): Promise<bigint> {
    return (await this.getAccount(address, blockNumber))?.balance ?? 0n;
  }

  async getNonce(address: Address, blockNumber: bigint = this.head().number): Promise<bigint> {
    return (await this.getAccount(address, blockNumber))?.nonce ?? 0n;
  }

  async getCode(address: Address, blockNumber: bigint): Promise<Uint8Array> {
    return this.stateAt(blockNumber).getCode(address);
  }

  /** The 32-byte storage word at `slot` (any length up to 32 bytes, left-padded). */
  async getStorageAt(address: Address, slot: Uint8Array, blockNumber: bigint): Promise<Uint8Array> {
    const state = this.stateAt(blockNumber);
    if ((await state.getAccount(address)) === undefined) return new Uint8Array(32);
    const value = await state.getStorage(address, setLengthLeft(slot, 32));
    return setLengthLeft(value, 32);
  }

  /** EIP-1186 account and storage proof against the stateRoot of block `blockNumber`. */
  async getProof(address: Address, slots: Uint8Array[], blockNumber: bigint): Promise<Proof> {
    return getMerkleStateProof(
      this.stateAt(blockNumber),
      address,
      slots.map((slot) => setLengthLeft(slot, 32)),
    );
  }

  /**
   * Executes a call on the state after block `blockNumber`; never persisted. Answered from the
   * kept outcomes of recent calls when it can be; otherwise run where `runCallsOn` says.
   */
  async call(request: CallRequest, blockNumber: bigint, caller?: string): Promise<CallResult> {
    const elsewhere = this.callExecution;
    return executeCall(
      this.callEnvironment(blockNumber),
      request,
      elsewhere === undefined ? runCall : () => elsewhere.call(request, blockNumber, caller),
    );
  }

  /** Gas a request needs at block `blockNumber` (binary search, like geth). */
  async estimateGas(request: CallRequest, blockNumber: bigint, caller?: string): Promise<bigint> {
    return this.callExecution === undefined
      ? this.estimateGasHere(request, blockNumber)
      : this.callExecution.estimateGas(request, blockNumber, caller);
  }

  /** The access list `request` needs at block `blockNumber` (`access-list.ts`). */
  async createAccessList(
    request: CallRequest,
    blockNumber: bigint,
    caller?: string,
  ): Promise<AccessListResult> {
    return this.callExecution === undefined
      ? this.createAccessListHere(request, blockNumber)
      : this.callExecution.createAccessList(request, blockNumber, caller);
  }

  /** Has calls and gas estimates run by `execution` from now on (this thread's own if undefined). */
  runCallsOn(execution: CallExecution | undefined): void {
    this.callExecution = execution;
  }

  /** Runs a call on this thread, without the kept outcomes (what a call thread does). */
  runCallHere(request: CallRequest, blockNumber: bigint): Promise<CallOutcome> {
    return runCall(this.callEnvironment(blockNumber), request);
  }

  /** Estimates gas on this thread. */
  estimateGasHere(request: CallRequest, blockNumber: bigint): Promise<bigint> {
    return estimateGas(this.callEnvironment(blockNumber), request);
  }

  /**
   * Simulates blocks of calls on the state after block `blockNumber` (`simulate.ts`), where
   * `runCallsOn` says; nothing of it is kept.
   */
  async simulate(
    request: SimulationRequest,
    blockNumber: bigint,
    caller?: string,
  ): Promise<SimulatedBlock[]> {
    if (this.callExecution === undefined) return this.simulateHere(request, blockNumber);
    const blocks = await this.callExecution.simulate(request, blockNumber, caller);
    return simulatedOf(blocks, this.common);
  }

  /** Simulates blocks of calls on this thread. */
  simulateHere(request: SimulationRequest, blockNumber: bigint): Promise<SimulatedBlock[]> {
    const env = { ...this.callEnvironment(blockNumber), baseFeeFloor: this.minGasPrice };
    return simulate(env, request);
  }

  /** Finds an access list on this thread. */
  createAccessListHere(request: CallRequest, blockNumber: bigint): Promise<AccessListResult> {
    return createAccessList(this.callEnvironment(blockNumber), request);
  }

  /** Reads committed trie nodes: what a replay of a past block opens its state over. */
  get trieNodes(): TrieNodeReader {
    return this.store.readTrieNode;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.store.close();
  }

  /** Whether the store is still open (readiness reports it). */
  isOpen(): boolean {
    return !this.closed;
  }

  /** Hits and misses of this reader's caches since it opened, by cache name (for metrics). */
  cacheCounts(): Record<string, CacheCounts> {
    return {
      blocks: this.blocksByNumber.counts,
      block_outlines: this.outlinesByNumber.counts,
      receipts: this.receiptsByNumber.counts,
      head_accounts: this.headAccounts.counts,
      call_outcomes: this.callVms.outcomes.counts,
    };
  }

  /** Nonces and balances after `stored`, whether or not it is the head yet. */
  protected accountsAfter(stored: StoredBlock): AccountReads {
    const state = this.openState(stored.block.header.stateRoot);
    return {
      getNonce: async (address) => (await state.getAccount(address))?.nonce ?? 0n,
      getBalance: async (address) => (await state.getAccount(address))?.balance ?? 0n,
    };
  }

  /** Makes `stored` the head: what reads at 'latest' see from now on. */
  protected advanceHead(stored: StoredBlock, receipts?: ChainReceipt[]): void {
    this.headBlock = stored;
    this.blocksByNumber.set(stored.number, stored);
    if (receipts !== undefined) this.receiptsByNumber.set(stored.number, receipts);
    this.headState = this.openState(stored.block.header.stateRoot);
    this.headAccounts.clear();
  }

  /**
   * Makes `stored` the head after a rewind: the blocks, outlines and receipts cached by number may have
   * been replaced, so none of them is kept.
   */
  protected rewindHead(stored: StoredBlock): void {
    this.blocksByNumber.clear();
    this.outlinesByNumber.clear();
    this.receiptsByNumber.clear();
    this.advanceHead(stored);
  }

  /** Moves to the block the producer published last, on a fresh database snapshot. */
  private follow(followed: SharedHead): void {
    const { number: published, rewinds } = followed.readBoth();
    if (published === this.headBlock.number && rewinds === this.rewinds) return;
    this.store.startFreshSnapshot();
    if (rewinds !== this.rewinds) {
      this.rewinds = rewinds;
      this.blocksByNumber.clear();
      this.outlinesByNumber.clear();
      this.receiptsByNumber.clear();
    }
    const record = this.store.blockRecord(Number(published));
    if (record === undefined) {
      throw new ServerError(`block ${published} was published but is not in the chain store`);
    }
    this.advanceHead(
      decodeStored(published, 'record', () => decodeBlockRecord(record, this.common)),
    );
  }

  /** The state under `stateRoot`: from the flat tables while they describe it, else the trie. */
  private openState(stateRoot: Uint8Array): FlatStateManager {
    const trie = openTrie(this.common, new TrieNodeOverlay(this.store.readTrieNode), stateRoot);
    return new FlatStateManager({ trie, common: this.common, flat: this.flat });
  }

  private stateAt(blockNumber: bigint): FlatStateManager {
    if (blockNumber === this.head().number) return this.headState;
    return this.openState(this.requireBlock(blockNumber).block.header.stateRoot);
  }

  private requireBlock(blockNumber: bigint): StoredBlock {
    const stored = this.getBlockByNumber(blockNumber);
    if (stored === undefined) throw new NotFoundError(`block ${blockNumber} not found`);
    return stored;
  }

  private callEnvironment(blockNumber: bigint): CallEnvironment {
    return {
      common: this.common,
      readNode: this.store.readTrieNode,
      flat: this.flat,
      blockchain: blockHashSource((number) => this.getBlockByNumber(number)?.hash),
      block: this.requireBlock(blockNumber).block,
      gasCap: this.parameters.callGasCap,
      vms: this.callVms,
    };
  }
}
