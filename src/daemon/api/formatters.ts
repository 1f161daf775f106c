/**
 * The chain's records in JSON-RPC form. Block objects follow the spec (difficulty, nonce,
 * sha3Uncles and totalDifficulty are null) unless `ethereumCompat` asks for the values geth
 * gives after the merge, which ethers v6 and Foundry need (decisions §4).
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bigIntToHex, type Address } from '@ethereumjs/util';
import type { BlockOutline, ChainLog, ChainReceipt, StoredBlock } from '../chain/types.js';
import { keccak256 } from '../crypto/wasm-crypto.js';
import { authorizationListJson } from '../txpool/transaction-json.js';

export interface FormatOptions {
  ethereumCompat: boolean;
}

/** keccak256(RLP([])): the uncles hash of a block without uncles. */
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

export const quantity = (value: bigint | number): string => bigIntToHex(BigInt(value));
/** 0x-hex of bytes through Buffer's native encoder (the formatters' hot path). */
export const hex = (bytes: Uint8Array): string =>
  `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
const address = (value: Address | undefined): string | null => (value ? value.toString() : null);

/** Where a transaction is in the chain, or nothing for a pending one. */
export interface TxLocation {
  blockHash: Uint8Array;
  blockNumber: bigint;
  blockTimestamp: bigint;
  index: number;
  /** Base fee of the block, to give the effective gas price of EIP-1559 transactions. */
  baseFee: bigint | undefined;
}

/** Where transaction `index` of a committed block is; the block whole or its outline. */
export function locationInBlock(block: StoredBlock | BlockOutline, index: number): TxLocation {
  const header = 'block' in block ? block.block.header : block.header;
  return {
    blockHash: block.hash,
    blockNumber: block.number,
    blockTimestamp: header.timestamp,
    index,
    baseFee: header.baseFeePerGas,
  };
}

function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if ('maxFeePerGas' in tx && 'maxPriorityFeePerGas' in tx) {
    const feeCap = tx.maxFeePerGas as bigint;
    if (baseFee === undefined) return feeCap;
    const tip = tx.maxPriorityFeePerGas as bigint;
    return baseFee + (tip < feeCap - baseFee ? tip : feeCap - baseFee);
  }
  return (tx as { gasPrice: bigint }).gasPrice;
}

export function formatTransaction(
  tx: TypedTransaction,
  sender: Address,
  location?: TxLocation,
): Record<string, unknown> {
  const json = tx.toJSON() as Record<string, unknown>;
  // An unsigned transaction (eth_fillTransaction) is shown as geth shows it: a zero signature,
  // and the hash of its encoding with that signature.
  const signed = tx.isSigned();
  const unsignedZero = signed ? undefined : '0x0';
  const formatted: Record<string, unknown> = {
    blockHash: location ? hex(location.blockHash) : null,
    blockNumber: location ? quantity(location.blockNumber) : null,
    blockTimestamp: location ? quantity(location.blockTimestamp) : null,
    from: sender.toString(),
    gas: json.gasLimit,
    gasPrice: quantity(effectiveGasPrice(tx, location?.baseFee)),
    hash: hex(signed ? tx.hash() : keccak256(tx.serialize())),
    input: json.data,
    nonce: json.nonce,
    to: json.to ?? null,
    transactionIndex: location ? quantity(location.index) : null,
    value: json.value,
    type: json.type,
    v: json.v ?? unsignedZero,
    r: json.r ?? unsignedZero,
    s: json.s ?? unsignedZero,
  };
  if (json.chainId !== undefined && tx.type !== 0) formatted.chainId = json.chainId;
  if (tx.type === 0 && tx.supports(155)) formatted.chainId = json.chainId;
  if (json.accessList !== undefined) formatted.accessList = json.accessList;
  if (json.maxFeePerGas !== undefined) formatted.maxFeePerGas = json.maxFeePerGas;
  if (json.maxPriorityFeePerGas !== undefined)
    formatted.maxPriorityFeePerGas = json.maxPriorityFeePerGas;
  if (json.yParity !== undefined) formatted.yParity = json.yParity;
  else if (!signed && tx.type !== 0) formatted.yParity = unsignedZero;
  const authorizationList = authorizationListJson(tx);
  if (authorizationList !== undefined) formatted.authorizationList = authorizationList;
  return formatted;
}

/** A block as JSON-RPC answers it: its transactions whole, or their hashes. */
export function formatBlock(
  stored: StoredBlock,
  fullTransactions: boolean,
  options: FormatOptions,
): Record<string, unknown> {
  const transactions = stored.block.transactions.map((tx, index) =>
    fullTransactions
      ? formatTransaction(tx, stored.senders[index], locationInBlock(stored, index))
      : hex(tx.hash()),
  );
  return blockJson(stored.block.header, stored.hashHex, stored.size, transactions, options);
}

/** A block as JSON-RPC answers it with its transactions' hashes, from its outline. */
export function formatBlockOutline(
  outline: BlockOutline,
  options: FormatOptions,
): Record<string, unknown> {
  return blockJson(
    outline.header,
    outline.hashHex,
    outline.size,
    outline.transactionHashes,
    options,
  );
}

function blockJson(
  header: BlockHeader,
  hashHex: string,
  size: number,
  transactions: readonly unknown[],
  options: FormatOptions,
): Record<string, unknown> {
  const compat = options.ethereumCompat;
  const formatted: Record<string, unknown> = {
    difficulty: compat ? quantity(header.difficulty) : null,
    extraData: hex(header.extraData),
    gasLimit: quantity(header.gasLimit),
    gasUsed: quantity(header.gasUsed),
    hash: hashHex,
    logsBloom: hex(header.logsBloom),
    miner: header.coinbase.toString(),
    mixHash: hex(header.mixHash),
    nonce: compat ? hex(header.nonce) : null,
    number: quantity(header.number),
    parentHash: hex(header.parentHash),
    receiptsRoot: hex(header.receiptTrie),
    sha3Uncles: compat ? EMPTY_UNCLES_HASH : null,
    size: quantity(size),
    stateRoot: hex(header.stateRoot),
    timestamp: quantity(header.timestamp),
    totalDifficulty: compat ? '0x0' : null,
    transactions,
    transactionsRoot: hex(header.transactionsTrie),
    uncles: [],
  };
  if (header.baseFeePerGas !== undefined) formatted.baseFeePerGas = quantity(header.baseFeePerGas);
  if (header.withdrawalsRoot !== undefined) {
    formatted.withdrawalsRoot = hex(header.withdrawalsRoot);
    formatted.withdrawals = [];
  }
  if (header.blobGasUsed !== undefined) formatted.blobGasUsed = quantity(header.blobGasUsed);
  if (header.excessBlobGas !== undefined) formatted.excessBlobGas = quantity(header.excessBlobGas);
  if (header.parentBeaconBlockRoot !== undefined)
    formatted.parentBeaconBlockRoot = hex(header.parentBeaconBlockRoot);
  if (header.requestsHash !== undefined) formatted.requestsHash = hex(header.requestsHash);
  return formatted;
}

export function formatLog(log: ChainLog): Record<string, unknown> {
  return {
    address: log.address.toString(),
    topics: log.topics.map(hex),
    data: hex(log.data),
    blockNumber: quantity(log.blockNumber),
    transactionHash: hex(log.transactionHash),
    transactionIndex: quantity(log.transactionIndex),
    blockHash: hex(log.blockHash),
    blockTimestamp: quantity(log.blockTimestamp),
    logIndex: quantity(log.logIndex),
    removed: log.removed,
  };
}

export function formatReceipt(receipt: ChainReceipt): Record<string, unknown> {
  return {
    blockHash: hex(receipt.blockHash),
    blockNumber: quantity(receipt.blockNumber),
    contractAddress: address(receipt.contractAddress),
    cumulativeGasUsed: quantity(receipt.cumulativeGasUsed),
    effectiveGasPrice: quantity(receipt.effectiveGasPrice),
    from: receipt.from.toString(),
    gasUsed: quantity(receipt.gasUsed),
    logs: receipt.logs.map(formatLog),
    logsBloom: hex(receipt.logsBloom),
    status: quantity(receipt.status),
    to: address(receipt.to),
    transactionHash: hex(receipt.transactionHash),
    transactionIndex: quantity(receipt.transactionIndex),
    type: quantity(receipt.type),
  };
}
