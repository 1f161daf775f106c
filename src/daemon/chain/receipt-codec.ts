/**
 * Storage form of a block's receipts: one RLP list per block. Block context (hash, number,
 * log indexes) is not stored; it is attached when the receipts are read.
 */
import { RLP } from '@ethereumjs/rlp';
import { Address, bigIntToBytes, bytesToBigInt, concatBytes } from '@ethereumjs/util';
import type { Pause } from '../time-slice.js';
import type { RecordHashes } from './block-record.js';
import type { ChainLog, ChainReceipt, ChainTransaction, StoredBlock } from './types.js';

/** The per-transaction facts execution produces that the header and the block do not hold. */
export interface ReceiptRecord {
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  contractAddress?: Address;
  logsBloom: Uint8Array;
  logs: [address: Uint8Array, topics: Uint8Array[], data: Uint8Array][];
}

/**
 * The RLP list of `records`, encoded one receipt at a time with `pause` asked before each (a
 * block's receipts are a third of a megabyte for 1 000 transfers: the bloom alone is 256 bytes
 * each), then wrapped as one list: the same bytes as encoding the list at once.
 */
export async function encodeReceipts(
  records: readonly ReceiptRecord[],
  pause: Pause = () => undefined,
): Promise<Uint8Array> {
  const rows: Uint8Array[] = [];
  for (const r of records) {
    await pause();
    rows.push(
      RLP.encode([
        r.status,
        bigIntToBytes(r.cumulativeGasUsed),
        bigIntToBytes(r.gasUsed),
        bigIntToBytes(r.effectiveGasPrice),
        r.contractAddress?.bytes ?? new Uint8Array(),
        r.logsBloom,
        r.logs,
      ]),
    );
  }
  return encodedList(rows);
}

/** The RLP list of items that are RLP-encoded already: the same bytes as encoding them at once. */
export function encodedList(items: readonly Uint8Array[]): Uint8Array {
  return concatBytes(rlpListPrefix(items.reduce((sum, item) => sum + item.length, 0)), ...items);
}

/** The prefix of an RLP list whose items take `payloadLength` bytes. */
function rlpListPrefix(payloadLength: number): Uint8Array {
  if (payloadLength <= 55) return Uint8Array.of(0xc0 + payloadLength);
  const lengthBytes: number[] = [];
  for (let rest = payloadLength; rest > 0; rest = Math.floor(rest / 256)) {
    lengthBytes.unshift(rest % 256);
  }
  return Uint8Array.of(0xf7 + lengthBytes.length, ...lengthBytes);
}

export function decodeReceipts(encoded: Uint8Array): ReceiptRecord[] {
  const rows = RLP.decode(encoded) as unknown as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    ReceiptRecord['logs'],
  ][];
  return rows.map(([status, cumulative, gasUsed, price, contract, bloom, logs]) => ({
    status: status.length === 0 ? 0 : 1,
    cumulativeGasUsed: bytesToBigInt(cumulative),
    gasUsed: bytesToBigInt(gasUsed),
    effectiveGasPrice: bytesToBigInt(price),
    contractAddress: contract.length === 0 ? undefined : new Address(contract),
    logsBloom: bloom,
    logs,
  }));
}

/** Attaches block context to stored receipt records; log indexes count across the block. */
export function receiptsOfBlock(
  stored: StoredBlock,
  records: readonly ReceiptRecord[],
): ChainReceipt[] {
  const receipts: ChainReceipt[] = [];
  let firstLogIndex = 0;
  records.forEach((record, index) => {
    receipts.push(receiptOfBlock(stored, record, index, firstLogIndex));
    firstLogIndex += record.logs.length;
  });
  return receipts;
}

/**
 * The receipt of transaction `index` of `stored`, its logs numbered from `firstLogIndex` (the
 * number of logs before it in the block).
 */
export function receiptOfBlock(
  stored: StoredBlock,
  record: ReceiptRecord,
  index: number,
  firstLogIndex: number,
): ChainReceipt {
  const placed = {
    tx: stored.block.transactions[index],
    sender: stored.senders[index],
    blockHash: stored.hash,
    blockNumber: stored.number,
    blockTimestamp: stored.block.header.timestamp,
    index,
  };
  return receiptOf(placed, record, firstLogIndex);
}

/** The receipt of `placed`, its logs numbered from `firstLogIndex` (the logs before it in its block). */
export function receiptOf(
  placed: ChainTransaction,
  record: ReceiptRecord,
  firstLogIndex: number,
): ChainReceipt {
  const { tx, index, blockHash, blockNumber, blockTimestamp } = placed;
  const transactionHash = tx.hash();
  const logs: ChainLog[] = record.logs.map(([address, topics, data], position) => ({
    address: new Address(address),
    topics,
    data,
    blockNumber,
    blockHash,
    blockTimestamp,
    transactionHash,
    transactionIndex: index,
    logIndex: firstLogIndex + position,
    removed: false,
  }));
  return {
    type: tx.type,
    transactionHash,
    transactionIndex: index,
    blockHash,
    blockNumber,
    from: placed.sender,
    to: tx.to,
    contractAddress: record.contractAddress,
    status: record.status,
    cumulativeGasUsed: record.cumulativeGasUsed,
    gasUsed: record.gasUsed,
    effectiveGasPrice: record.effectiveGasPrice,
    logs,
    logsBloom: record.logsBloom,
  };
}

/**
 * The logs of block `number` read from its stored receipts; `hashes` gives the block's and its
 * transactions' hashes, and the block's timestamp.
 */
export function logsOfReceipts(
  number: bigint,
  encoded: Uint8Array,
  hashes: RecordHashes,
): ChainLog[] {
  const rows = RLP.decode(encoded) as unknown as Array<[...Uint8Array[], ReceiptRecord['logs']]>;
  const logs: ChainLog[] = [];
  let logIndex = 0;
  rows.forEach((row, transactionIndex) => {
    for (const [address, topics, data] of row[6] as ReceiptRecord['logs']) {
      logs.push({
        address: new Address(address),
        topics,
        data,
        blockNumber: number,
        blockHash: hashes.blockHash,
        blockTimestamp: hashes.blockTimestamp,
        transactionHash: hashes.transactionHash(transactionIndex),
        transactionIndex,
        logIndex: logIndex++,
        removed: false,
      });
    }
  });
  return logs;
}
