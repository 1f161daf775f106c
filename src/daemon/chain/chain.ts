/**
 * The chain facade the API layer, the pool and the consensus engine use.
 *
 * Why it is shaped this way:
 * - One writer. Blocks are produced one at a time (a promise chain serialises
 *   `buildAndCommitBlock`), on a state manager whose caches hold the head state between blocks,
 *   so a block's transactions never re-read what the previous block wrote.
 * - Many readers, none of them on the writer's state. Reads at any height open the trie at that
 *   block's stateRoot over the committed node table; since nodes are never deleted the head and
 *   every past block are equally readable. Calls run on private overlays and never persist.
 * - Hot reads are cached: recent blocks and receipts, and accounts of the head state (dropped
 *   whenever a block is committed), because `eth_getBalance` at 'latest' dominates RPC load.
 */
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager, getMerkleStateProof } from '@ethereumjs/statemanager';
import type { Proof } from '@ethereumjs/statemanager';
import {
  ValueEncoding,
  bytesToHex,
  createZeroAddress,
  equalsBytes,
  setLengthLeft,
} from '@ethereumjs/util';
import type { Account, Address } from '@ethereumjs/util';
import { initCrypto } from '../crypto/wasm-crypto.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { PoolStateView, PooledTransaction } from '../txpool/types.js';
import { nextBaseFee } from './base-fee.js';
import { decodeBlockRecord, encodeBlockRecord, storedBlock } from './block-record.js';
import { CallVmCache, estimateGas, executeCall } from './call.js';
import { checksumAddress } from './checksum-address.js';
import type { CallEnvironment, CallRequest, CallResult } from './call.js';
import { createChainCommon } from './common.js';
import { BlockExecutor } from './executor.js';
import type { ExecutedTx } from './executor.js';
import type { GenesisConfig } from './genesis.js';
import { buildGenesisBlock } from './genesis-block.js';
import { decodeReceipts, encodeReceipts, receiptsOfBlock } from './receipt-codec.js';
import { ChainStore } from './store.js';
import { TrieNodeOverlay } from './trie-node-overlay.js';
import { LruCache } from './lru-cache.js';
import { blockRetainedBytes, receiptsRetainedBytes } from './retained-size.js';
import type {
  ChainReceipt,
  ChainTransaction,
  CommittedBlock,
  StoredBlock,
  TxResult,
} from './types.js';

export interface ChainOptions {
  dataDir: string;
  genesis: GenesisConfig;
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
  cacheBytes?: { blocks: number; receipts: number };
}

/**
 * Memory budgets of the recent-block and recent-receipt caches (estimates: `retained-size.ts`).
 * 16 MiB holds some 8 000 decoded transactions, the last few full blocks, for transaction and
 * block lookups; 16 MiB of receipts covers about 16 000 token transfers, enough for
 * `eth_getLogs` over recent ranges without decoding anything.
 */
const RECENT_BLOCKS_BYTES = 16 * 2 ** 20;
const RECENT_RECEIPTS_BYTES = 16 * 2 ** 20;
const HEAD_ACCOUNTS = 100_000;

function openTrie(common: Common, db: TrieNodeOverlay, root?: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({
    db,
    root,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
  });
}

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
    ...(error === undefined
      ? {}
      : { ethereumTxFailed: error === 'revert' ? 'execution reverted' : error }),
  };
}

/** What the EVM's BLOCKHASH needs: hashes of committed blocks by number. */
function blockHashSource(
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

export class Chain implements PoolStateView {
  private readonly blocksByNumber: LruCache<bigint, StoredBlock>;
  private readonly receiptsByNumber: LruCache<bigint, ChainReceipt[]>;
  private readonly headAccounts = new LruCache<string, Account | null>(HEAD_ACCOUNTS);
  private headState: MerkleStateManager;
  private producing: Promise<unknown> = Promise.resolve();
  private readonly callVms = new CallVmCache();

  private constructor(
    readonly common: Common,
    private readonly store: ChainStore,
    private readonly genesis: GenesisConfig,
    private readonly writeBack: TrieNodeOverlay,
    private readonly executionState: MerkleStateManager,
    private readonly executor: BlockExecutor,
    private headBlock: StoredBlock,
    private coinbaseAddress: Address,
    private readonly callGasCap: bigint,
    private readonly minGasPriceOverride: bigint | undefined,
    cacheBytes: { blocks: number; receipts: number },
  ) {
    this.blocksByNumber = new LruCache(cacheBytes.blocks, blockRetainedBytes);
    this.receiptsByNumber = new LruCache<bigint, ChainReceipt[]>(
      cacheBytes.receipts,
      receiptsRetainedBytes,
    );
    this.headState = this.openState(headBlock.block.header.stateRoot);
  }

  /**
   * Opens the chain in `dataDir`: writes genesis into a fresh store, or checks that the stored
   * chain has this genesis (hash and chain id) and resumes at its head.
   * Throws `ConflictError` when the data directory holds a different chain.
   */
  static async open(options: ChainOptions): Promise<Chain> {
    await initCrypto();
    const { genesis } = options;
    const common = createChainCommon(genesis.chainId);
    const store = ChainStore.open(options.dataDir);
    try {
      await Chain.ensureGenesis(common, store, genesis);
      const head = store.head()!;
      const headBlock = decodeBlockRecord(store.blockRecord(head.number)!, common);
      const writeBack = new TrieNodeOverlay(store.readTrieNode);
      const executionState = new MerkleStateManager({
        trie: openTrie(common, writeBack, headBlock.block.header.stateRoot),
        common,
        caches: new Caches(),
      });
      // The executor needs BLOCKHASH answers from the chain it is part of.
      const built: { chain?: Chain } = {};
      const executor = await BlockExecutor.create(
        common,
        executionState,
        blockHashSource((number) => built.chain?.getBlockByNumber(number)?.hash),
      );
      const chain = new Chain(
        common,
        store,
        genesis,
        writeBack,
        executionState,
        executor,
        headBlock,
        options.coinbase ?? genesis.coinbase ?? createZeroAddress(),
        options.callGasCap ?? 25_000_000n,
        options.minGasPrice,
        options.cacheBytes ?? { blocks: RECENT_BLOCKS_BYTES, receipts: RECENT_RECEIPTS_BYTES },
      );
      chain.blocksByNumber.set(headBlock.number, headBlock);
      built.chain = chain;
      return chain;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  private static async ensureGenesis(
    common: Common,
    store: ChainStore,
    genesis: GenesisConfig,
  ): Promise<void> {
    const overlay = new TrieNodeOverlay(store.readTrieNode);
    const stateManager = new MerkleStateManager({ trie: openTrie(common, overlay), common });
    const block = await buildGenesisBlock(common, genesis, stateManager);
    const hash = block.hash();
    const identity = store.identity();
    if (identity === undefined) {
      await store.commitGenesis(
        {
          number: 0,
          hash,
          blockRecord: encodeBlockRecord(block, []),
          receiptsRlp: encodeReceipts([]),
          txHashes: [],
          senders: [],
          trieNodes: overlay.writtenNodes(),
        },
        { genesisHash: hash, chainId: genesis.chainId },
      );
      return;
    }
    if (!equalsBytes(identity.genesisHash, hash) || identity.chainId !== genesis.chainId) {
      throw new ConflictError(
        `the data directory holds another chain (genesis ${bytesToHex(identity.genesisHash)}, chain id ` +
          `${identity.chainId}); this configuration gives genesis ${bytesToHex(hash)}, chain id ${genesis.chainId}`,
      );
    }
  }

  get chainId(): bigint {
    return this.genesis.chainId;
  }

  get genesisHash(): Uint8Array {
    return this.store.identity()!.genesisHash;
  }

  /** Address that receives priority fees of the blocks produced from now on. */
  get coinbase(): Address {
    return this.coinbaseAddress;
  }

  setCoinbase(address: Address): void {
    this.coinbaseAddress = address;
  }

  /** Minimum gas price (wei), also the floor of the base fee. */
  get minGasPrice(): bigint {
    return this.minGasPriceOverride ?? this.genesis.minGasPrice;
  }

  head(): StoredBlock {
    return this.headBlock;
  }

  blockGasLimit(): bigint {
    return this.genesis.gasLimit;
  }

  /** Base fee of the next block. */
  nextBaseFee(): bigint {
    const header = this.headBlock.block.header;
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
    if (number < 0n || number > this.headBlock.number) return undefined;
    const cached = this.blocksByNumber.get(number);
    if (cached !== undefined) return cached;
    const record = this.store.blockRecord(Number(number));
    if (record === undefined) return undefined;
    const stored = decodeBlockRecord(record, this.common);
    this.blocksByNumber.set(number, stored);
    return stored;
  }

  getBlockByHash(hash: Uint8Array): StoredBlock | undefined {
    const number = this.store.blockNumberOf(hash);
    return number === undefined ? undefined : this.getBlockByNumber(BigInt(number));
  }

  getTransaction(hash: Uint8Array): ChainTransaction | undefined {
    const location = this.store.txLocation(hash);
    if (location === undefined) return undefined;
    const stored = this.getBlockByNumber(BigInt(location.blockNumber));
    if (stored === undefined) return undefined;
    return {
      tx: stored.block.transactions[location.index],
      blockNumber: stored.number,
      blockHash: stored.hash,
      index: location.index,
      sender: stored.senders[location.index],
    };
  }

  getBlockReceipts(number: bigint): ChainReceipt[] | undefined {
    const cached = this.receiptsByNumber.get(number);
    if (cached !== undefined) return cached;
    const stored = this.getBlockByNumber(number);
    const encoded = this.store.receiptsRlp(Number(number));
    if (stored === undefined || encoded === undefined) return undefined;
    const receipts = receiptsOfBlock(stored, decodeReceipts(encoded));
    this.receiptsByNumber.set(number, receipts);
    return receipts;
  }

  getReceipt(hash: Uint8Array): ChainReceipt | undefined {
    const location = this.store.txLocation(hash);
    if (location === undefined) return undefined;
    return this.getBlockReceipts(BigInt(location.blockNumber))?.[location.index];
  }

  /** The account at the end of block `blockNumber`, or undefined if it does not exist. */
  async getAccount(address: Address, blockNumber: bigint): Promise<Account | undefined> {
    if (blockNumber !== this.headBlock.number) return this.stateAt(blockNumber).getAccount(address);
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
    if (blockNumber !== this.headBlock.number) return undefined;
    const cached = this.headAccounts.get(addressHex.toLowerCase());
    return cached === undefined ? undefined : (cached?.balance ?? 0n);
  }

  async getBalance(address: Address, blockNumber: bigint = this.headBlock.number): Promise<bigint> {
    return (await this.getAccount(address, blockNumber))?.balance ?? 0n;
  }

  async getNonce(address: Address, blockNumber: bigint = this.headBlock.number): Promise<bigint> {
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

  /** Executes a call on the state after block `blockNumber`; never persisted. */
  async call(request: CallRequest, blockNumber: bigint): Promise<CallResult> {
    return executeCall(this.callEnvironment(blockNumber), request);
  }

  /** Gas a request needs at block `blockNumber` (binary search, like geth). */
  async estimateGas(request: CallRequest, blockNumber: bigint): Promise<bigint> {
    return estimateGas(this.callEnvironment(blockNumber), request);
  }

  /**
   * Executes `txs` in order on the head state and commits the block atomically. Transactions
   * that cannot execute are left out and returned in `rejected` so the pool can drop them.
   * A `timestamp` not after the parent's is raised to parent + 1 (timestamps strictly increase).
   */
  buildAndCommitBlock(
    txs: readonly PooledTransaction[],
    timestamp: bigint,
  ): Promise<CommittedBlock> {
    const run = this.producing.then(() => this.produce(txs, timestamp));
    this.producing = run.catch(() => undefined);
    return run;
  }

  /** Waits for the block in flight, then closes the store. */
  async close(): Promise<void> {
    await this.producing;
    await this.store.close();
  }

  private async produce(
    txs: readonly PooledTransaction[],
    timestamp: bigint,
  ): Promise<CommittedBlock> {
    const parent = this.headBlock;
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
      const executed = await this.executor.execute(context, txs);
      const stored = storedBlock(
        executed.block,
        executed.included.map((e) => e.pooled.sender),
      );
      const records = executed.included.map((e) => e.receipt);
      await this.store.commitBlock({
        number: Number(stored.number),
        hash: stored.hash,
        blockRecord: encodeBlockRecord(stored.block, stored.senders),
        receiptsRlp: encodeReceipts(records),
        txHashes: executed.included.map((e) => e.pooled.hash),
        senders: stored.senders.map((s) => s.bytes),
        trieNodes: this.writeBack.writtenNodes(),
      });
      this.writeBack.clear();
      const receipts = receiptsOfBlock(stored, records);
      this.advanceHead(stored, receipts);
      const results: TxResult[] = executed.included.map((e, index) => ({
        hash: e.pooled.hash,
        hashHex: e.pooled.hashHex,
        index,
        code: e.receipt.status === 1 ? 0 : 1,
        gasUsed: e.receipt.gasUsed,
        error: e.result.execResult.exceptionError?.error,
        logs: receipts[index].logs,
        ethereumTx: ethereumTxAttributes(e, index),
      }));
      return { block: stored, receipts, results, rejected: executed.rejected };
    } catch (error) {
      this.writeBack.clear();
      await this.executionState.setStateRoot(parentHeader.stateRoot);
      throw error;
    }
  }

  private advanceHead(stored: StoredBlock, receipts: ChainReceipt[]): void {
    this.headBlock = stored;
    this.blocksByNumber.set(stored.number, stored);
    this.receiptsByNumber.set(stored.number, receipts);
    this.headState = this.openState(stored.block.header.stateRoot);
    this.headAccounts.clear();
  }

  private openState(stateRoot: Uint8Array): MerkleStateManager {
    const trie = openTrie(this.common, new TrieNodeOverlay(this.store.readTrieNode), stateRoot);
    return new MerkleStateManager({ trie, common: this.common });
  }

  private stateAt(blockNumber: bigint): MerkleStateManager {
    if (blockNumber === this.headBlock.number) return this.headState;
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
      blockchain: blockHashSource((number) => this.getBlockByNumber(number)?.hash),
      block: this.requireBlock(blockNumber).block,
      gasCap: this.callGasCap,
      vms: this.callVms,
    };
  }
}
