/**
 * The shapes the chain hands to its readers (JSON-RPC, events, consensus socket).
 * Bytes are `Uint8Array`, addresses `Address`, quantities `bigint`; formatting is the reader's job.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import type { AccountReads } from '../txpool/types.js';

/** A committed block with the facts every reader needs, computed once. */
export interface StoredBlock {
  block: Block;
  number: bigint;
  hash: Uint8Array;
  hashHex: string;
  /** Length of the block's RLP, the `size` of a JSON-RPC block. */
  size: number;
  /** Sender of each transaction, by index. */
  senders: Address[];
}

/**
 * A committed block without its transactions' bodies: what an answer that lists them by hash
 * needs, read from the stored record without building each transaction.
 */
export interface BlockOutline {
  header: BlockHeader;
  number: bigint;
  hash: Uint8Array;
  hashHex: string;
  /** Length of the block's RLP, the `size` of a JSON-RPC block. */
  size: number;
  /** Its transactions' hashes in block order, as 0x-prefixed hex. */
  transactionHashes: readonly string[];
}

/** One log as clients see it: position in the chain included. */
export interface ChainLog {
  address: Address;
  topics: Uint8Array[];
  data: Uint8Array;
  blockNumber: bigint;
  blockHash: Uint8Array;
  /** Timestamp of the log's block (`blockTimestamp`, execution-apis; geth 1.16 gives it). */
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  /** Index of the log in its block. */
  logIndex: number;
  /** True only in the notices of a development rewind that took the log's block away. */
  removed: boolean;
}

export interface ChainReceipt {
  type: number;
  transactionHash: Uint8Array;
  transactionIndex: number;
  blockHash: Uint8Array;
  blockNumber: bigint;
  from: Address;
  to?: Address;
  contractAddress?: Address;
  /** 1 success, 0 failure. */
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  logs: ChainLog[];
  logsBloom: Uint8Array;
}

/** A committed transaction and where it is. */
export interface ChainTransaction {
  tx: TypedTransaction;
  blockNumber: bigint;
  blockHash: Uint8Array;
  blockTimestamp: bigint;
  index: number;
  sender: Address;
}

/**
 * Attributes of the `ethereum_tx` event (decisions §6), as strings the way CometBFT carries them.
 * `ethereumTxFailed` is present only for failed transactions and holds the EVM error.
 */
export interface EthereumTxAttributes {
  sender: string;
  recipient: string;
  ethereumTxHash: string;
  txIndex: string;
  amount: string;
  txGasUsed: string;
  ethereumTxFailed?: string;
}

/** The consensus view of one included transaction. */
export interface TxResult {
  hash: Uint8Array;
  hashHex: string;
  index: number;
  /** Consensus result code: 0 success (receipt status 1), 1 failure (receipt status 0). */
  code: 0 | 1;
  gasUsed: bigint;
  /** EVM error of a failed transaction ('revert', 'out of gas', ...). */
  error?: string;
  logs: ChainLog[];
  ethereumTx: EthereumTxAttributes;
}

/** A transaction left out of a block because it cannot execute; the pool should drop it. */
export interface RejectedTx {
  hashHex: string;
  reason: string;
}

export interface CommittedBlock {
  block: StoredBlock;
  receipts: ChainReceipt[];
  results: TxResult[];
  rejected: RejectedTx[];
}

/** A block a development rewind took off the chain, with its receipts. */
export interface RewoundBlock {
  block: StoredBlock;
  receipts: ChainReceipt[];
}

/**
 * Work on a committed block before any reader can see it: the block is durable, and `state`
 * reads its post-state, while the head every thread shows is still its parent.
 */
export type BeforeVisible = (committed: CommittedBlock, state: AccountReads) => Promise<void>;
