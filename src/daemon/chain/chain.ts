/**
 * The chain as the block producer holds it: every read of `ChainReader`, plus block production
 * on the main thread.
 *
 * Why it is shaped this way:
 * - One writer. Blocks are produced one at a time (a promise chain serialises
 *   `buildAndCommitBlock`), on a state manager whose caches hold the head state between blocks,
 *   so a block's transactions never re-read what the previous block wrote.
 * - Production runs in time slices (`../time-slice.ts`): execution, the trie's flush, assembly and
 *   encoding let the event loop answer requests every few milliseconds. The block in flight is
 *   invisible until the one synchronous step that makes it the head, so a request answered
 *   between two slices sees the parent, as it would before production started.
 * - Readers never see the writer's working state: they read committed blocks through the
 *   `ChainReader` part of this object, or through a reader of their own on another thread that
 *   follows the number this writer publishes in its `sharedHead` once a block is committed.
 */
import type { Common } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex, createZeroAddress, equalsBytes } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import { initCrypto } from '../crypto/wasm-crypto.js';
import { ConflictError, NotFoundError } from '../../shared/errors.js';
import type { PoolStateView, PooledTransaction } from '../txpool/types.js';
import { decodeBlockRecord, encodeBlockRecord, storedBlock } from './block-record.js';
import { checksumAddress } from './checksum-address.js';
import { ChainReader, blockHashSource, openTrie } from './chain-reader.js';
import type { ReaderCacheBytes } from './chain-reader.js';
import { createChainCommon } from './common.js';
import { BlockExecutor } from './executor.js';
import { FlatStateView, flatStateOfTrie } from './flat-state.js';
import { FlatStateManager } from './flat-state-manager.js';
import type { ExecutedTx, StateChange } from './executor.js';
import type { GenesisConfig } from '../../shared/genesis-file.js';
import { buildGenesisBlock, genesisBlockHash } from './genesis-block.js';
import { encodeReceipts, receiptOfBlock } from './receipt-codec.js';
import { SharedHead } from './shared-head.js';
import { ChainStore, type ChainSnapshots } from './store.js';
import {
  checkOpenedStore,
  checkStoreFile,
  damagedStoreError,
  holdsChain,
} from './store-integrity.js';
import { MAIN_THREAD_SLICE_MS, TimeSlicer } from '../time-slice.js';
import type { Pause } from '../time-slice.js';
import { TrieNodeOverlay } from './trie-node-overlay.js';
import { gethError } from './evm-errors.js';
import { isLmdbError, unreadable } from './lmdb-file.js';
import type {
  BeforeVisible,
  ChainReceipt,
  CommittedBlock,
  RewoundBlock,
  StoredBlock,
  TxResult,
} from './types.js';

export interface ChainOptions {
  dataDir: string;
  genesis: GenesisConfig;
  /**
   * Geneses earlier releases made for the same configuration: a store holding one of them is
   * opened on it rather than refused.
   */
  earlierGeneses?: readonly GenesisConfig[];
  /** Receives priority fees; defaults to the genesis coinbase or the zero address. */
  coinbase?: Address;
  /** Most gas `call` and `estimateGas` may use. Default 25 000 000. */
  callGasCap?: bigint;
  /**
   * Minimum gas price (wei) and base-fee floor from the configuration (`--minimum-gas-prices`,
   * `miner_setGasPrice`); defaults to the genesis value. The genesis block keeps its own.
   */
  minGasPrice?: bigint;
  /** Memory budgets (bytes, estimated) of the recent-block and recent-receipt caches. */
  cacheBytes?: ReaderCacheBytes;
  /** Told when the flat state tables were built from the head's trie at open (`flat-state.ts`). */
  onFlatStateBuilt?: (built: FlatStateBuilt) => void;
  /** Where block production lets the event loop run. Default: slices of its own. */
  pause?: Pause;
}

/** What building the flat state tables at open took. */
export interface FlatStateBuilt {
  blockNumber: bigint;
  accounts: number;
  slots: number;
  milliseconds: number;
}

/**
 * Memory budgets of the producer's recent-block and recent-receipt caches (estimates:
 * `retained-size.ts`). 4 MiB holds some 2 000 decoded transactions, the last full block or
 * two, for transaction and block lookups; 4 MiB of receipts covers about 4 000 token transfers.
 * `eth_getLogs` (`events/served-logs.ts`) and the fee methods (`api/fee-oracle.ts`) keep what
 * they need themselves, so larger caches only cost memory (docs/benchmarks.md).
 */
export const PRODUCER_CACHE_BYTES: ReaderCacheBytes = {
  blocks: 4 * 2 ** 20,
  receipts: 4 * 2 ** 20,
};

function ethereumTxAttributes(executed: ExecutedTx, index: number): TxResult['ethereumTx'] {
  const { pooled, result } = executed;
  const recipient = pooled.tx.to ?? result.createdAddress;
  const error = result.execResult.exceptionError?.error;
  return {
    sender: checksumAddress(pooled.sender),
    recipient: recipient === undefined ? '' : checksumAddress(recipient),
    ethereumTxHash: pooled.hashHex,
    txIndex: String(index),
    amount: pooled.tx.value.toString(),
    txGasUsed: result.totalGasSpent.toString(),
    ...(error === undefined ? {} : { ethereumTxFailed: gethError(error) }),
  };
}

/** Told how long each block's store commit took; `now` gives its start (0 when unmeasured). */
export interface CommitObserver {
  now(): number;
  storeCommitted(startedAt: number): void;
}

const UNOBSERVED_COMMITS: CommitObserver = { now: () => 0, storeCommitted: () => undefined };

export class Chain extends ChainReader implements PoolStateView {
  /** The number of the last committed block, for readers on other threads. */
  readonly sharedHead = new SharedHead();
  private producing: Promise<unknown> = Promise.resolve();
  private commitObserver: CommitObserver = UNOBSERVED_COMMITS;

  private constructor(
    common: Common,
    store: ChainStore,
    private readonly genesis: GenesisConfig,
    private readonly writeBack: TrieNodeOverlay,
    private readonly executionState: FlatStateManager,
    private readonly executor: BlockExecutor,
    private readonly pause: Pause,
    headBlock: StoredBlock,
    private coinbaseAddress: Address,
    callGasCap: bigint,
    minGasPrice: bigint,
    cacheBytes: ReaderCacheBytes,
  ) {
    super(
      common,
      store,
      {
        chainId: genesis.chainId,
        blockGasLimit: genesis.gasLimit,
        minGasPrice,
        callGasCap,
      },
      headBlock,
      cacheBytes,
    );
    this.sharedHead.publish(headBlock.number);
  }

  /**
   * Opens the chain in `dataDir`: writes genesis into a fresh store, or checks that the stored
   * chain has this genesis (hash and chain id) and resumes at its head.
   * Throws `ConflictError` when the data directory holds a different chain, `DamagedStoreError`
   * when its store is missing, truncated or damaged (`store-integrity.ts`).
   */
  static async open(options: ChainOptions): Promise<Chain> {
    await initCrypto();
    const { genesis, dataDir } = options;
    const common = createChainCommon(genesis.chainId);
    checkStoreFile(dataDir);
    let store: ChainStore;
    try {
      store = ChainStore.open(dataDir);
    } catch (error) {
      throw damagedStoreError(dataDir, `cannot be opened (${(error as Error).message})`);
    }
    try {
      const storedGenesis = await Chain.ensureGenesis(
        common,
        store,
        [genesis, ...(options.earlierGeneses ?? [])],
        dataDir,
      );
      checkOpenedStore(store, dataDir, common, store.identity()!);
      const head = store.head()!;
      const headBlock = decodeBlockRecord(store.blockRecord(head.number)!, common);
      const flat = new FlatStateView(store, common.customCrypto.keccak256!);
      await Chain.ensureFlatState(store, flat, headBlock, options.onFlatStateBuilt);
      const pause = options.pause ?? new TimeSlicer(MAIN_THREAD_SLICE_MS).pause;
      const writeBack = new TrieNodeOverlay(store.readTrieNode, pause);
      const executionState = new FlatStateManager({
        trie: openTrie(common, writeBack, headBlock.block.header.stateRoot),
        common,
        flat,
        executing: true,
      });
      // The executor needs BLOCKHASH answers from the chain it is part of.
      const built: { chain?: Chain } = {};
      const executor = await BlockExecutor.create(
        common,
        executionState,
        blockHashSource((number) => built.chain?.getBlockByNumber(number)?.hash),
        pause,
      );
      const chain = new Chain(
        common,
        store,
        storedGenesis,
        writeBack,
        executionState,
        executor,
        pause,
        headBlock,
        options.coinbase ?? genesis.coinbase ?? createZeroAddress(),
        options.callGasCap ?? 25_000_000n,
        options.minGasPrice ?? genesis.minGasPrice,
        options.cacheBytes ?? PRODUCER_CACHE_BYTES,
      );
      built.chain = chain;
      return chain;
    } catch (error) {
      await store.close();
      // Damage the checks above did not name: a page pointer inside the file, met by a read.
      if (isLmdbError(error)) {
        throw damagedStoreError(dataDir, unreadable(error));
      }
      throw error;
    }
  }

  /**
   * Builds the flat state tables from the head's trie when they do not describe the head: a
   * store written before they existed. Every later block keeps them up to date.
   */
  private static async ensureFlatState(
    store: ChainStore,
    flat: FlatStateView,
    head: StoredBlock,
    onBuilt: ChainOptions['onFlatStateBuilt'],
  ): Promise<void> {
    const stateRoot = head.block.header.stateRoot;
    if (flat.describes(stateRoot)) return;
    const started = performance.now();
    const write = flatStateOfTrie(store.readTrieNode, stateRoot);
    await store.writeFlatState(write);
    onBuilt?.({
      blockNumber: head.number,
      accounts: write.accounts.length,
      slots: write.slots.length,
      milliseconds: Math.round(performance.now() - started),
    });
  }

  /**
   * Writes the first of `accepted` into a fresh store, or finds which of them the store holds
   * (the configured genesis first, then earlier releases' ones); returns that genesis.
   */
  private static async ensureGenesis(
    common: Common,
    store: ChainStore,
    accepted: readonly [GenesisConfig, ...GenesisConfig[]],
    dataDir: string,
  ): Promise<GenesisConfig> {
    const [genesis] = accepted;
    const overlay = new TrieNodeOverlay(store.readTrieNode);
    const stateManager = new MerkleStateManager({ trie: openTrie(common, overlay), common });
    const block = await buildGenesisBlock(common, genesis, stateManager);
    const hash = block.hash();
    const identity = store.identity();
    if (identity === undefined) {
      // Never a new genesis where a chain was: that would silently drop every block and account.
      if (holdsChain(dataDir)) throw damagedStoreError(dataDir, 'holds no chain');
      await store.commitGenesis(
        {
          number: 0,
          hash,
          blockRecord: await encodeBlockRecord(block, []),
          receiptsRlp: await encodeReceipts([]),
          txHashes: [],
          senders: [],
          trieNodes: overlay.writtenNodes(),
          flatState: flatStateOfTrie((key) => overlay.read(key), block.header.stateRoot),
        },
        { genesisHash: hash, chainId: genesis.chainId },
      );
      return genesis;
    }
    if (identity.chainId === genesis.chainId) {
      if (equalsBytes(identity.genesisHash, hash)) return genesis;
      for (const earlier of accepted.slice(1)) {
        if (equalsBytes(identity.genesisHash, await genesisBlockHash(common, earlier))) {
          return earlier;
        }
      }
    }
    throw new ConflictError(
      `the data directory holds another chain (genesis ${bytesToHex(identity.genesisHash)}, chain id ` +
        `${identity.chainId}); this configuration gives genesis ${bytesToHex(hash)}, chain id ${genesis.chainId}`,
    );
  }

  /** Address that receives priority fees of the blocks produced from now on. */
  get coinbase(): Address {
    return this.coinbaseAddress;
  }

  setCoinbase(address: Address): void {
    this.coinbaseAddress = address;
  }

  /** Reports the time of each block's store commit to `observer` (the node's metrics). */
  observeCommits(observer: CommitObserver): void {
    this.commitObserver = observer;
  }

  /**
   * Executes `txs` in order on the head state and commits the block atomically. Transactions
   * that cannot execute are left out and returned in `rejected` so the pool can drop them.
   * A `timestamp` not after the parent's is raised to parent + 1 (timestamps strictly increase).
   * `beforeVisible` runs once the block is durable; then, in one synchronous step, the block
   * becomes the head on this thread and is published to the others. The caller's continuation
   * after the returned promise runs before this thread serves another request.
   */
  buildAndCommitBlock(
    txs: Iterable<PooledTransaction> | AsyncIterable<PooledTransaction>,
    timestamp: bigint,
    beforeVisible?: BeforeVisible,
    stateChange?: StateChange,
  ): Promise<CommittedBlock> {
    return this.inTurn(() => this.produce(txs, timestamp, beforeVisible, stateChange));
  }

  /**
   * Takes every block above `number` off the chain (a development rewind: `evm_revert`,
   * `anvil_reset`), in one store transaction with the snapshots that remain; the execution
   * state goes back to that block's root and every reader moves to it. Resolves with the
   * removed blocks and their receipts, oldest first.
   */
  rewindTo(number: bigint, snapshots: ChainSnapshots): Promise<RewoundBlock[]> {
    return this.inTurn(async () => {
      const target = this.getBlockByNumber(number);
      if (target === undefined) throw new NotFoundError(`block ${number} not found`);
      const previous = this.head();
      const rewound: RewoundBlock[] = [];
      for (let n = number + 1n; n <= previous.number; n++) {
        rewound.push({ block: this.getBlockByNumber(n)!, receipts: this.getBlockReceipts(n)! });
      }
      // Readers move to the target first: from then on they ask for nothing above it, so none
      // reads a block the commit below is deleting, whichever snapshot it reads.
      this.moveHeadBack(target);
      try {
        await this.store.rewindTo(
          { number: Number(number), hash: target.hash },
          rewound.map(({ block }) => ({
            number: Number(block.number),
            hash: block.hash,
            txHashes: block.block.transactions.map((tx) => tx.hash()),
          })),
          snapshots,
          flatStateOfTrie(this.store.readTrieNode, target.block.header.stateRoot),
        );
      } catch (error) {
        this.moveHeadBack(previous);
        throw error;
      }
      await this.resetExecutionState(target.block.header.stateRoot);
      return rewound;
    });
  }

  /** Makes `block` the head of every reader, on this thread and the others, after a rewind. */
  private moveHeadBack(block: StoredBlock): void {
    this.sharedHead.publishRewind(block.number);
    this.rewindHead(block);
  }

  /** The development snapshots stored with the chain. */
  snapshots(): ChainSnapshots {
    return this.store.snapshots();
  }

  saveSnapshots(snapshots: ChainSnapshots): Promise<void> {
    return this.inTurn(() => this.store.saveSnapshots(snapshots));
  }

  /** Runs `step` after the chain's writes in flight, before any queued after it. */
  private inTurn<T>(step: () => Promise<T>): Promise<T> {
    const run = this.producing.then(step);
    this.producing = run.catch(() => undefined);
    return run;
  }

  /** Waits for the block in flight, then closes the store. */
  override async close(): Promise<void> {
    await this.producing;
    await super.close();
  }

  private async produce(
    txs: Iterable<PooledTransaction> | AsyncIterable<PooledTransaction>,
    timestamp: bigint,
    beforeVisible: BeforeVisible | undefined,
    stateChange: StateChange | undefined,
  ): Promise<CommittedBlock> {
    const committed = await this.executeAndCommit(txs, timestamp, stateChange);
    const { block, receipts } = committed;
    try {
      await beforeVisible?.(committed, this.accountsAfter(block));
    } finally {
      // Published and adopted in one synchronous step, so a request this thread answers after
      // another thread has shown the block sees it too. The block is durable whatever
      // `beforeVisible` did, so it becomes the head in any case.
      this.sharedHead.publish(block.number);
      this.advanceHead(block, receipts);
    }
    return committed;
  }

  /** Executes and persists a block; on failure the execution state is back at the parent's. */
  private async executeAndCommit(
    txs: Iterable<PooledTransaction> | AsyncIterable<PooledTransaction>,
    timestamp: bigint,
    stateChange: StateChange | undefined,
  ): Promise<CommittedBlock> {
    const parent = this.head();
    const parentHeader = parent.block.header;
    const context = {
      parentHash: parent.hash,
      number: parent.number + 1n,
      timestamp: timestamp > parentHeader.timestamp ? timestamp : parentHeader.timestamp + 1n,
      coinbase: this.coinbaseAddress,
      gasLimit: this.genesis.gasLimit,
      baseFeePerGas: this.nextBaseFee(),
      extraData: new Uint8Array(),
    };
    try {
      const executed = await this.executor.execute(context, txs, stateChange);
      const senders = executed.included.map((e) => e.pooled.sender);
      const blockRecord = await encodeBlockRecord(
        executed.block,
        senders,
        this.pause,
        executed.serialized,
      );
      const stored = storedBlock(executed.block, senders, blockRecord);
      const records = executed.included.map((e) => e.receipt);
      await this.pause();
      const receiptsRlp = await encodeReceipts(records, this.pause);
      const commitStarted = this.commitObserver.now();
      const flatState = await this.executionState.takeFlatChanges(
        (key) => this.writeBack.read(key),
        stored.block.header.stateRoot,
      );
      await this.store.commitBlock(
        {
          number: Number(stored.number),
          hash: stored.hash,
          blockRecord,
          receiptsRlp,
          txHashes: executed.included.map((e) => e.pooled.hash),
          senders: stored.senders.map((s) => s.bytes),
          trieNodes: this.writeBack.writtenNodes(),
          flatState,
        },
        this.pause,
      );
      this.commitObserver.storeCommitted(commitStarted);
      this.writeBack.clear();
      const receipts: ChainReceipt[] = [];
      const results: TxResult[] = [];
      let firstLogIndex = 0;
      for (const [index, e] of executed.included.entries()) {
        // The receipt's JSON-RPC form and two checksummed addresses per transaction: some
        // 10–20 µs each, a slice per few hundred (a whole block in one piece was 10–20 ms).
        await this.pause();
        receipts.push(receiptOfBlock(stored, records[index], index, firstLogIndex));
        firstLogIndex += records[index].logs.length;
        results.push({
          hash: e.pooled.hash,
          hashHex: e.pooled.hashHex,
          index,
          code: e.receipt.status === 1 ? 0 : 1,
          gasUsed: e.receipt.gasUsed,
          error: e.result.execResult.exceptionError?.error,
          logs: receipts[index].logs,
          ethereumTx: ethereumTxAttributes(e, index),
        });
      }
      return { block: stored, receipts, results, rejected: executed.rejected };
    } catch (error) {
      // Nothing of the failed block may survive (a commit that failed on a full disk is tried
      // again later): back at the parent's root with empty caches, the state manager reads
      // from the store again.
      await this.resetExecutionState(parentHeader.stateRoot);
      throw error;
    }
  }

  /**
   * Puts the execution state at `stateRoot` with empty caches. The write-back layer and the
   * recorded flat changes are dropped last, since setting the root first flushes whatever the
   * caches still held.
   */
  private async resetExecutionState(stateRoot: Uint8Array): Promise<void> {
    try {
      await this.executionState.setStateRoot(stateRoot);
    } finally {
      this.writeBack.clear();
      this.executionState.discardFlatChanges();
    }
  }
}
