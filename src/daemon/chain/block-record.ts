/**
 * Storage form of a block: its RLP values together with the senders of its transactions, so
 * reading a block never needs signature recovery.
 */
import { createBlockFromBytesArray, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import type { Block, BlockBytes, BlockHeaderBytes } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { Capability, createTxFromBlockBodyData } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToBigInt, bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../crypto/wasm-crypto.js';
import type { Pause } from '../time-slice.js';
import type { HeaderFees } from './block-fees.js';
import { encodedList } from './receipt-codec.js';
import type { BlockOutline, StoredBlock } from './types.js';

/**
 * The record of `block`: the RLP of `[block.raw(), senders]`, built one transaction at a time
 * with `pause` asked before each (a block of 1 000 transfers was 10–14 ms of encoding in one
 * piece), then wrapped as the lists `block.raw()` gives: header, transactions (typed ones as
 * their serialization), uncle headers and, where the block has them, withdrawals. `serialized`,
 * when given, holds each transaction's `serialize()` already made (the executor's, for the
 * transactions trie), which is most of the encoding.
 */
export async function encodeBlockRecord(
  block: Block,
  senders: readonly Address[],
  pause: Pause = () => undefined,
  serialized?: readonly Uint8Array[],
): Promise<Uint8Array> {
  const transactions: Uint8Array[] = [];
  for (const [index, tx] of block.transactions.entries()) {
    await pause();
    // A legacy transaction's serialization is the RLP of its raw values, what the record holds.
    const bytes = serialized?.[index] ?? tx.serialize();
    const typed = tx.supports(Capability.EIP2718TypedTransaction);
    transactions.push(typed ? RLP.encode(bytes) : bytes);
  }
  await pause();
  const values = [
    RLP.encode(block.header.raw()),
    encodedList(transactions),
    RLP.encode(block.uncleHeaders.map((uncle) => uncle.raw())),
  ];
  if (block.withdrawals !== undefined) {
    values.push(RLP.encode(block.withdrawals.map((withdrawal) => withdrawal.raw())));
  }
  return encodedList([encodedList(values), RLP.encode(senders.map((s) => s.bytes))]);
}

export function decodeBlockRecord(record: Uint8Array, common: Common): StoredBlock {
  const [values, senders] = RLP.decode(record) as unknown as [BlockBytes, Uint8Array[]];
  const block = createBlockFromBytesArray(values, { common });
  return storedBlock(
    block,
    senders.map((s) => new Address(s)),
    record,
  );
}

/**
 * Wraps a block with the facts readers need, computed once; `record` is its
 * {@link encodeBlockRecord}, whose first item is the block's own encoding, so the size is read
 * off it instead of encoding every transaction again (a tenth of a large block's production).
 */
export function storedBlock(block: Block, senders: Address[], record: Uint8Array): StoredBlock {
  const hash = block.hash();
  return {
    block,
    number: block.header.number,
    hash,
    hashHex: bytesToHex(hash),
    size: firstItemLength(record),
    senders,
  };
}

/** The outline of a block already built. */
export function outlineOfStored(stored: StoredBlock): BlockOutline {
  return {
    header: stored.block.header,
    number: stored.number,
    hash: stored.hash,
    hashHex: stored.hashHex,
    size: stored.size,
    transactionHashes: stored.block.transactions.map((tx) => bytesToHex(tx.hash())),
  };
}

/**
 * The outline of a stored block: its header built, its transactions only hashed, as
 * {@link recordHashes} hashes them.
 */
export function decodeBlockOutline(record: Uint8Array, common: Common): BlockOutline {
  const [values] = RLP.decode(record) as unknown as [BlockBytes, Uint8Array[]];
  const header = createBlockHeaderFromBytesArray(values[0] as BlockHeaderBytes, { common });
  const transactions = values[1] as unknown as Array<Uint8Array | Uint8Array[]>;
  const hash = header.hash();
  return {
    header,
    number: header.number,
    hash,
    hashHex: bytesToHex(hash),
    size: firstItemLength(record),
    transactionHashes: transactions.map((raw) => bytesToHex(storedTransactionHash(raw))),
  };
}

/**
 * Positions in a header's RLP list (Ethereum's header layout) of the fields read without
 * building the block.
 */
const HEADER_GAS_LIMIT = 9;
const HEADER_GAS_USED = 10;
const HEADER_TIMESTAMP = 11;
const HEADER_BASE_FEE = 15;

/**
 * Transaction `index` of a stored block, its sender and the block's hash and timestamp, the
 * transaction built alone: the others' bytes are only sliced. Undefined past the block's last transaction.
 */
export function decodeRecordTransaction(
  record: Uint8Array,
  index: number,
  common: Common,
):
  | { tx: TypedTransaction; sender: Address; blockHash: Uint8Array; blockTimestamp: bigint }
  | undefined {
  const [values, senders] = RLP.decode(record) as unknown as [BlockBytes, Uint8Array[]];
  const raw = (values[1] as unknown as Array<Uint8Array | Uint8Array[]>)[index];
  if (raw === undefined || senders[index] === undefined) return undefined;
  const header = values[0] as unknown as Uint8Array[];
  return {
    tx: createTxFromBlockBodyData(raw, { common }),
    sender: new Address(senders[index]),
    blockHash: keccak256(RLP.encode(header)),
    blockTimestamp: bytesToBigInt(header[HEADER_TIMESTAMP]),
  };
}

/** Length, prefix included, of the first item of the RLP list `list`. */
function firstItemLength(list: Uint8Array): number {
  const item = rlpPrefix(list, 0).prefixLength;
  const { prefixLength, payloadLength } = rlpPrefix(list, item);
  return prefixLength + payloadLength;
}

/** The prefix of the RLP item at `offset` (a list or a string longer than one byte). */
function rlpPrefix(
  bytes: Uint8Array,
  offset: number,
): { prefixLength: number; payloadLength: number } {
  const first = bytes[offset];
  if (first < 0x80) return { prefixLength: 0, payloadLength: 1 };
  // Short strings (0x80-0xb7) and short lists (0xc0-0xf7) carry the length in the first byte;
  // long ones (0xb8-0xbf, 0xf8-0xff) the number of big-endian length bytes that follow.
  const base = first < 0xc0 ? 0x80 : 0xc0;
  const short = first - base;
  if (short <= 55) return { prefixLength: 1, payloadLength: short };
  const lengthBytes = short - 55;
  let payloadLength = 0;
  for (let i = 1; i <= lengthBytes; i++) payloadLength = payloadLength * 256 + bytes[offset + i];
  return { prefixLength: 1 + lengthBytes, payloadLength };
}

/**
 * What a block record says without building the block: its hash, its timestamp and its
 * transactions' hashes.
 */
export interface RecordHashes {
  blockHash: Uint8Array;
  blockTimestamp: bigint;
  /** The hash of transaction `index`, computed when first asked for. */
  transactionHash(index: number): Uint8Array;
}

/**
 * Hashes straight from a stored record: the block's is that of its header's RLP, a typed
 * transaction's that of its stored bytes, a legacy one's that of its RLP list (as the library
 * computes them, without building a transaction object for each).
 */
export function recordHashes(record: Uint8Array): RecordHashes {
  const [values] = RLP.decode(record) as unknown as [BlockBytes, Uint8Array[]];
  const [header, transactions] = values as unknown as [
    Uint8Array[],
    Array<Uint8Array | Uint8Array[]>,
  ];
  const hashes: Uint8Array[] = [];
  return {
    blockHash: keccak256(RLP.encode(header)),
    blockTimestamp: bytesToBigInt(header[HEADER_TIMESTAMP]),
    transactionHash(index) {
      const raw = transactions[index];
      hashes[index] ??= storedTransactionHash(raw);
      return hashes[index];
    },
  };
}

/**
 * A transaction's hash from its place in a block record: a typed transaction's stored bytes, a
 * legacy one's RLP list, hashed as the library hashes them.
 */
function storedTransactionHash(raw: Uint8Array | Uint8Array[]): Uint8Array {
  return keccak256(raw instanceof Uint8Array ? raw : RLP.encode(raw));
}

/** The fee fields of a stored block's header, without building the block. */
export function recordHeaderFees(record: Uint8Array): HeaderFees {
  const [values] = RLP.decode(record) as unknown as [BlockBytes, Uint8Array[]];
  const header = values[0] as unknown as Uint8Array[];
  return {
    gasLimit: bytesToBigInt(header[HEADER_GAS_LIMIT]),
    gasUsed: bytesToBigInt(header[HEADER_GAS_USED]),
    baseFeePerGas: bytesToBigInt(header[HEADER_BASE_FEE] ?? new Uint8Array()),
  };
}
