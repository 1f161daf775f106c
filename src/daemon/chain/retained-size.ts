/**
 * Estimates of the heap a decoded block, a block's receipts or its consensus results keep alive,
 * for caches that bound themselves by memory rather than by entry count (a block may hold none
 * or a thousand transactions). Measured as the heap a decoded block record keeps (ERC-20
 * transfers, type 2): about 5 KiB for the block and 1.4 KiB per transaction, rounded up for the
 * hashes and senders cached on them. Every header and transaction holds its own copy of the
 * chain's `Common`; the copies share one parameter table (`common.ts`), without which each would
 * weigh some 12 KiB more.
 */
import type { BlockOutline, ChainReceipt, StoredBlock, TxResult } from './types.js';

const BLOCK_BYTES = 6 * 1024;
const TRANSACTION_BYTES = 2 * 1024;
const RECEIPT_BYTES = 640;
const LOG_BYTES = 384;
const RESULT_BYTES = 512;
/** A block outline: its header, and a hash's hex string of 66 characters per transaction. */
const OUTLINE_BYTES = 3 * 1024;
const HASH_HEX_BYTES = 96;
/** What an entry costs a cache whatever it holds (key, map slot, array). */
const ENTRY_BYTES = 128;

export function blockRetainedBytes(stored: StoredBlock): number {
  return BLOCK_BYTES + TRANSACTION_BYTES * stored.block.transactions.length;
}

export function outlineRetainedBytes(outline: BlockOutline): number {
  return OUTLINE_BYTES + HASH_HEX_BYTES * outline.transactionHashes.length;
}

export function receiptsRetainedBytes(receipts: readonly ChainReceipt[]): number {
  let bytes = ENTRY_BYTES;
  for (const receipt of receipts) bytes += RECEIPT_BYTES + LOG_BYTES * receipt.logs.length;
  return bytes;
}

/** The consensus results of a block's transactions (their logs are shared with the receipts). */
export function resultsRetainedBytes(results: readonly TxResult[]): number {
  return ENTRY_BYTES + RESULT_BYTES * results.length;
}
