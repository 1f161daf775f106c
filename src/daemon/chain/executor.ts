/**
 * Executes a block's transactions and assembles the block.
 *
 * Each transaction goes through `runTx` once, against state that lives in the state manager's
 * caches; roots, bloom and receipts are computed once at the end. (The library's BlockBuilder
 * re-creates the block per transaction, which is quadratic: ~10 tx/s at 2 000 transactions.)
 * A transaction that cannot execute is left out and reported, never allowed to abort the block.
 * Between transactions and between the assembly's steps the executor asks its `pause` whether to
 * let the event loop run (`../time-slice.ts`), so a large block does not hold the thread that
 * answers requests; nothing it reads or writes is shared with those requests.
 */
import { Block, createBlock, createBlockHeader, genRequestsRoot } from '@ethereumjs/block';
import type { HeaderData } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { TransactionType } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { KECCAK256_RLP, concatBytes, intToBytes } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import type { StateManagerInterface } from '@ethereumjs/common';
import { Bloom, createVM, encodeReceipt, runTx } from '@ethereumjs/vm';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { PooledTransaction } from '../txpool/types.js';
import type { Pause } from '../time-slice.js';
import { OrderedTrieRoot } from './ordered-trie-root.js';
import type { ReceiptRecord } from './receipt-codec.js';
import type { RejectedTx } from './types.js';

/** The header fields the producer decides; everything else is computed from execution. */
export interface BlockContext {
  parentHash: Uint8Array;
  number: bigint;
  timestamp: bigint;
  coinbase: Address;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  extraData: Uint8Array;
}

/**
 * A change of state made before a block's transactions, inside its checkpoint, so the block's
 * stateRoot and commit carry it (the development setters, `dev/`).
 */
export type StateChange = (state: StateManagerInterface) => Promise<void>;

/** One included transaction and what executing it produced. */
export interface ExecutedTx {
  pooled: PooledTransaction;
  result: RunTxResult;
  receipt: ReceiptRecord;
}

export interface ExecutedBlock {
  block: Block;
  /** Each transaction's `serialize()`, in block order. */
  serialized: Uint8Array[];
  included: ExecutedTx[];
  rejected: RejectedTx[];
}

const EMPTY_BYTES32 = new Uint8Array(32);
/** The intrinsic gas of a transaction: all a plain value transfer costs. */
export const MIN_TX_GAS = 21_000n;

/** `runTx` leaves EVM checkpoints open when something throws mid-execution; the journal's depth
 * tells how many to unwind. The field is not in the typings. */
interface JournalDepth {
  journalHeight: number;
}

/** Maps EthereumJS validation messages to geth's wording, which clients match on. */
export function rejectionReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/nonce/.test(message) && /correct nonce/.test(message)) {
    const match = /account has nonce of: (\d+) tx has nonce of: (\d+)/.exec(message);
    if (match !== null)
      return BigInt(match[2]) < BigInt(match[1]) ? 'nonce too low' : 'nonce too high';
  }
  if (/balance/.test(message) && /upfront|insufficient|cost/i.test(message)) {
    return 'insufficient funds for gas * price + value';
  }
  if (/intrinsic.gas|gasLimit is too low|lower than the minimum gas limit/i.test(message)) {
    return intrinsicGasReason(message);
  }
  if (
    /fee cap less than block base fee|maxFeePerGas.*baseFee|less than the block's baseFeePerGas/i.test(
      message,
    )
  ) {
    return 'max fee per gas less than block base fee';
  }
  if (/address is not EOA/.test(message)) return 'sender not an eoa';
  // runTx appends its context (" (vm hf=… -> block … -> tx …)"), which tells a caller nothing.
  return message
    .split('\n')[0]
    .replace(/ \(vm hf=.*$/, '')
    .split(' -')[0];
}

/** The pool's wording (`txpool/admission.ts`), with the figures when EthereumJS gave them. */
function intrinsicGasReason(message: string): string {
  const runTx = /gas limit (\d+) is lower than the minimum gas limit of (\d+)/.exec(message);
  const txCheck = /minimum gas limit of (\d+) .*the gas limit is: (\d+)/.exec(message);
  const [gas, needed] =
    runTx !== null ? [runTx[1], runTx[2]] : txCheck !== null ? [txCheck[2], txCheck[1]] : [];
  return gas === undefined
    ? 'intrinsic gas too low'
    : `intrinsic gas too low: gas ${gas}, minimum needed ${needed}`;
}

/** Effective price per gas the sender pays (EIP-1559: base fee plus the capped tip). */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if ('maxFeePerGas' in tx) {
    const withTip = baseFee + tx.maxPriorityFeePerGas;
    return withTip < tx.maxFeePerGas ? withTip : tx.maxFeePerGas;
  }
  return tx.gasPrice;
}

/**
 * The header fields of what this chain's blocks never carry: withdrawals, blobs, a beacon root
 * and execution-layer requests.
 */
export function emptyBlockFields(common: Common): HeaderData {
  return {
    withdrawalsRoot: KECCAK256_RLP,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: EMPTY_BYTES32,
    requestsHash: genRequestsRoot([], common.customCrypto.sha256!),
  };
}

export class BlockExecutor {
  private readonly trieRoot: OrderedTrieRoot;

  private constructor(
    private readonly common: Common,
    private readonly vm: VM,
    private readonly pause: Pause,
  ) {
    this.trieRoot = new OrderedTrieRoot(common.customCrypto.keccak256!);
  }

  /**
   * Creates an executor over the state manager that holds the head state; `pause` is asked
   * between steps whether to let the event loop run first (never, by default).
   */
  static async create(
    common: Common,
    stateManager: MerkleStateManager,
    blockchain: EVMMockBlockchainInterface,
    pause: Pause = () => undefined,
  ): Promise<BlockExecutor> {
    const vm = await createVM({ common, stateManager, blockchain });
    return new BlockExecutor(common, vm, pause);
  }

  /**
   * Runs `txs` in order on the head state and assembles the block. Transactions that do not
   * fit the remaining gas are skipped silently (they stay in the pool); those that cannot execute
   * at all are returned as `rejected`; `stateChange` runs first. The state manager holds the
   * post-state afterwards.
   */
  async execute(
    context: BlockContext,
    txs: Iterable<PooledTransaction> | AsyncIterable<PooledTransaction>,
    stateChange?: StateChange,
  ): Promise<ExecutedBlock> {
    const header = this.headerFields(context);
    const executionBlock = createBlock({ header }, { common: this.common });
    const included: ExecutedTx[] = [];
    const rejected: RejectedTx[] = [];
    // One state checkpoint around the whole block: a transaction's changes then stay in the
    // state manager's caches, and the tries are written once per block at the outer commit
    // instead of after every transaction (accounts a block touches many times, a token
    // contract's storage or a busy sender, used to be re-hashed into the trie each time).
    const state = this.vm.stateManager;
    await state.checkpoint();
    try {
      await stateChange?.(state);
      await this.runAll(context, txs, executionBlock, included, rejected);
    } catch (error) {
      await state.revert();
      throw error;
    }
    await state.commit();
    await this.pause();
    const gasUsed = included.at(-1)?.receipt.cumulativeGasUsed ?? 0n;
    const { block, serialized } = await this.assemble(header, included, gasUsed);
    return { block, serialized, included, rejected };
  }

  /**
   * Runs `txs` in order into `included` and `rejected`, packing by the gas they use; takes no
   * more of them once the block is full.
   */
  private async runAll(
    context: BlockContext,
    txs: Iterable<PooledTransaction> | AsyncIterable<PooledTransaction>,
    executionBlock: Block,
    included: ExecutedTx[],
    rejected: RejectedTx[],
  ): Promise<void> {
    const journal = this.vm.evm.journal as unknown as JournalDepth;
    // A sender whose transaction was skipped or rejected has a nonce gap now; its later
    // transactions wait for the next block instead of failing as "nonce too high".
    const blockedSenders = new Set<string>();
    let gasUsed = 0n;
    for await (const pooled of txs) {
      await this.pause();
      // No transaction needs less than 21 000 gas: the block is full.
      if (context.gasLimit - gasUsed < MIN_TX_GAS) break;
      const tx = pooled.tx;
      if (blockedSenders.has(pooled.senderHex)) continue;
      if (tx.type === TransactionType.BlobEIP4844) {
        rejected.push({ hashHex: pooled.hashHex, reason: 'blob transactions are not supported' });
        blockedSenders.add(pooled.senderHex);
        continue;
      }
      if (gasUsed + tx.gasLimit > context.gasLimit) {
        blockedSenders.add(pooled.senderHex);
        continue;
      }
      const depth = journal.journalHeight;
      let result: RunTxResult;
      try {
        result = await runTx(this.vm, {
          tx,
          block: executionBlock,
          blockGasUsed: gasUsed,
          skipHardForkValidation: true,
        });
      } catch (error) {
        while (journal.journalHeight > depth) await this.vm.evm.journal.revert();
        rejected.push({ hashHex: pooled.hashHex, reason: rejectionReason(error) });
        blockedSenders.add(pooled.senderHex);
        continue;
      }
      gasUsed += result.blockGasSpent;
      included.push({ pooled, result, receipt: this.receiptRecord(tx, result, gasUsed, context) });
    }
  }

  private headerFields(context: BlockContext): HeaderData {
    return {
      parentHash: context.parentHash,
      coinbase: context.coinbase,
      number: context.number,
      timestamp: context.timestamp,
      gasLimit: context.gasLimit,
      baseFeePerGas: context.baseFeePerGas,
      extraData: context.extraData,
      // PREVRANDAO has no beacon chain behind it here; derive it from the parent so it is
      // deterministic yet different per block.
      mixHash: this.common.customCrypto.keccak256!(
        concatBytes(context.parentHash, intToBytes(Number(context.number))),
      ),
      ...emptyBlockFields(this.common),
    };
  }

  private receiptRecord(
    tx: TypedTransaction,
    result: RunTxResult,
    cumulativeGasUsed: bigint,
    context: BlockContext,
  ): ReceiptRecord {
    return {
      status: result.execResult.exceptionError === undefined ? 1 : 0,
      cumulativeGasUsed,
      gasUsed: result.totalGasSpent,
      effectiveGasPrice: effectiveGasPrice(tx, context.baseFeePerGas),
      contractAddress: result.createdAddress,
      logsBloom: result.bloom.bitvector,
      logs: result.execResult.logs ?? [],
    };
  }

  private async assemble(
    header: HeaderData,
    included: ExecutedTx[],
    gasUsed: bigint,
  ): Promise<{ block: Block; serialized: Uint8Array[] }> {
    const transactions = included.map((e) => e.pooled.tx);
    const bloom = new Bloom(undefined, this.common);
    const serialized: Uint8Array[] = [];
    const receipts: Uint8Array[] = [];
    for (const executed of included) {
      await this.pause();
      bloom.or(executed.result.bloom);
      serialized.push(executed.pooled.encoded ?? executed.pooled.tx.serialize());
      receipts.push(encodeReceipt(executed.result.receipt, executed.pooled.tx.type));
    }
    const stateRoot = await this.vm.stateManager.getStateRoot();
    const transactionsTrie = await this.trieRoot.ofListSliced(serialized, this.pause);
    const receiptTrie = await this.trieRoot.ofListSliced(receipts, this.pause);
    const blockHeader = createBlockHeader(
      {
        ...header,
        stateRoot,
        transactionsTrie,
        receiptTrie,
        logsBloom: bloom.bitvector,
        gasUsed,
      },
      { common: this.common },
    );
    // The pool's transaction objects go into the block as they are: `createBlock` would build
    // each one again from its fields (a `Common` copy and parameter rebuild per transaction,
    // about a tenth of a millisecond each) and lose the sender and hash they have cached.
    return { block: new Block(blockHeader, transactions, [], []), serialized };
  }
}
