/**
 * Typed wrappers over the eth_* methods the CLI uses. Results are parsed from JSON-RPC hex into
 * bigint (amounts, gas, block numbers) and number (nonces, indexes, types, status); every parsed
 * object keeps the wire object as `raw`, which is what `--json` prints.
 *
 * The proof-of-work fields of a block (difficulty, nonce, sha3Uncles, totalDifficulty) are null
 * in the spec's form and filled in with `--json-rpc.ethereum-compat`; both parse here, so the
 * client works against either setting and against other nodes.
 */
import { ServerError } from '../shared/errors.js';
import type { HttpRpcClient } from './http-rpc-client.js';

/** 0x-prefixed hex text. */
export type Hex = `0x${string}`;

/** The named blocks of the JSON-RPC block selector. */
export type BlockTag = 'earliest' | 'latest' | 'pending' | 'safe' | 'finalized';

/** A block by number, by tag, or by 32-byte hash (hex). */
export type BlockSelector = bigint | BlockTag | Hex;

/** A JSON-RPC object as the node sent it (hex strings, nulls, arrays). */
export type RpcObject = Record<string, unknown>;

/** A transaction object; block fields are null while it is pending. */
export interface Transaction {
  hash: Hex;
  blockHash: Hex | null;
  blockNumber: bigint | null;
  transactionIndex: number | null;
  from: Hex;
  to: Hex | null;
  value: bigint;
  nonce: number;
  gas: bigint;
  gasPrice: bigint;
  maxFeePerGas: bigint | undefined;
  maxPriorityFeePerGas: bigint | undefined;
  input: Hex;
  type: number | undefined;
  chainId: bigint | undefined;
  raw: RpcObject;
}

/** A block object; `transactions` holds hashes or, when asked for in full, transaction objects. */
export interface Block<TTransaction extends Hex | Transaction = Hex | Transaction> {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  timestamp: bigint;
  miner: Hex;
  gasLimit: bigint;
  /** The spec allows null. */
  gasUsed: bigint | null;
  baseFeePerGas: bigint | undefined;
  size: bigint;
  stateRoot: Hex;
  transactionsRoot: Hex;
  receiptsRoot: Hex;
  extraData: Hex;
  /** Null in the spec's form, a value with `--json-rpc.ethereum-compat`. */
  difficulty: bigint | null;
  nonce: Hex | null;
  sha3Uncles: Hex | null;
  totalDifficulty: bigint | null;
  transactions: TTransaction[];
  uncles: Hex[];
  raw: RpcObject;
}

/** A log entry of a receipt. */
export interface Log {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  transactionHash: Hex;
  transactionIndex: number;
  logIndex: number;
  removed: boolean;
}

/** The receipt of a mined transaction. */
export interface Receipt {
  transactionHash: Hex;
  transactionIndex: number;
  blockHash: Hex;
  blockNumber: bigint;
  from: Hex;
  to: Hex | null;
  contractAddress: Hex | null;
  /** 1 success, 0 failure. */
  status: number;
  gasUsed: bigint;
  /** The spec allows null. */
  cumulativeGasUsed: bigint | null;
  effectiveGasPrice: bigint | undefined;
  type: number | undefined;
  logs: Log[];
  logsBloom: Hex;
  raw: RpcObject;
}

/** The fields of eth_call; amounts as bigint, encoded to QUANTITY on the wire. */
export interface CallRequest {
  from?: Hex;
  to?: Hex;
  data?: Hex;
  value?: bigint;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  nonce?: number;
}

/** The JSON-RPC value of a selector: a QUANTITY for numbers, the tag or hash as is. */
export function blockSelectorParam(selector: BlockSelector): string {
  return typeof selector === 'bigint' ? toQuantity(selector) : selector;
}

/** A 32-byte hash selects a block by hash; anything else is a number or a tag. */
export function isBlockHash(selector: BlockSelector): selector is Hex {
  return typeof selector === 'string' && /^0x[0-9a-fA-F]{64}$/.test(selector);
}

/** A JSON-RPC QUANTITY: 0x-hex without leading zeros. */
export function toQuantity(value: bigint | number): Hex {
  return `0x${value.toString(16)}`;
}

/**
 * The eth_* methods of one node, typed.
 *
 * @example
 * const eth = new EthClient(connectDaemon(dataDir).rpc);
 * const block = await eth.getBlock('latest', false);
 * console.log(block?.number);
 */
export class EthClient {
  constructor(private readonly rpc: HttpRpcClient) {}

  async chainId(): Promise<bigint> {
    return toBigInt(await this.rpc.call('eth_chainId'), 'chainId');
  }

  async blockNumber(): Promise<bigint> {
    return toBigInt(await this.rpc.call('eth_blockNumber'), 'blockNumber');
  }

  /** The block, with hashes or (when `full`) transaction objects; null when it does not exist. */
  getBlock(selector: BlockSelector, full: true): Promise<Block<Transaction> | null>;
  getBlock(selector: BlockSelector, full?: false): Promise<Block<Hex> | null>;
  getBlock(selector: BlockSelector, full: boolean): Promise<Block | null>;
  async getBlock(selector: BlockSelector, full = false): Promise<Block | null> {
    const raw = isBlockHash(selector)
      ? await this.rpc.call<RpcObject | null>('eth_getBlockByHash', [selector, full])
      : await this.rpc.call<RpcObject | null>('eth_getBlockByNumber', [
          blockSelectorParam(selector),
          full,
        ]);
    return raw === null ? null : parseBlock(raw);
  }

  /** The transaction (pending or mined), or null when the node does not know it. */
  async getTransaction(hash: Hex): Promise<Transaction | null> {
    const raw = await this.rpc.call<RpcObject | null>('eth_getTransactionByHash', [hash]);
    return raw === null ? null : parseTransaction(raw);
  }

  /** The receipt, or null while the transaction is pending or when it is unknown. */
  async getTransactionReceipt(hash: Hex): Promise<Receipt | null> {
    const raw = await this.rpc.call<RpcObject | null>('eth_getTransactionReceipt', [hash]);
    return raw === null ? null : parseReceipt(raw);
  }

  /** Balance in wei. */
  async getBalance(address: Hex, block: BlockSelector = 'latest'): Promise<bigint> {
    const result = await this.rpc.call('eth_getBalance', [address, blockSelectorParam(block)]);
    return toBigInt(result, 'balance');
  }

  async getTransactionCount(address: Hex, block: BlockSelector = 'latest'): Promise<number> {
    const result = await this.rpc.call('eth_getTransactionCount', [
      address,
      blockSelectorParam(block),
    ]);
    return toNumber(result, 'nonce');
  }

  /** Executes a call without a transaction and returns its output bytes. */
  async call(request: CallRequest, block: BlockSelector = 'latest'): Promise<Hex> {
    const result = await this.rpc.call('eth_call', [
      encodeCallRequest(request),
      blockSelectorParam(block),
    ]);
    return toHex(result, 'call result');
  }

  /** Submits a signed transaction and returns its hash. */
  async sendRawTransaction(signed: Hex): Promise<Hex> {
    return toHex(await this.rpc.call('eth_sendRawTransaction', [signed]), 'transaction hash');
  }
}

function encodeCallRequest(request: CallRequest): RpcObject {
  const encoded: RpcObject = {};
  for (const [key, value] of Object.entries(request)) {
    if (value === undefined) continue;
    encoded[key] =
      typeof value === 'bigint' || typeof value === 'number' ? toQuantity(value) : value;
  }
  return encoded;
}

/** Parses a block object from the wire (hashes or full transactions). */
export function parseBlock(raw: RpcObject): Block {
  const transactions = toArray(raw.transactions, 'transactions').map((entry) =>
    typeof entry === 'string'
      ? toHex(entry, 'transaction hash')
      : parseTransaction(entry as RpcObject),
  );
  return {
    number: toBigInt(raw.number, 'number'),
    hash: toHex(raw.hash, 'hash'),
    parentHash: toHex(raw.parentHash, 'parentHash'),
    timestamp: toBigInt(raw.timestamp, 'timestamp'),
    miner: toHex(raw.miner, 'miner'),
    gasLimit: toBigInt(raw.gasLimit, 'gasLimit'),
    gasUsed: nullable(raw.gasUsed, (value) => toBigInt(value, 'gasUsed')),
    baseFeePerGas: optional(raw.baseFeePerGas, (value) => toBigInt(value, 'baseFeePerGas')),
    size: toBigInt(raw.size, 'size'),
    stateRoot: toHex(raw.stateRoot, 'stateRoot'),
    transactionsRoot: toHex(raw.transactionsRoot, 'transactionsRoot'),
    receiptsRoot: toHex(raw.receiptsRoot, 'receiptsRoot'),
    extraData: toHex(raw.extraData, 'extraData'),
    difficulty: nullable(raw.difficulty, (value) => toBigInt(value, 'difficulty')),
    nonce: nullable(raw.nonce, (value) => toHex(value, 'nonce')),
    sha3Uncles: nullable(raw.sha3Uncles, (value) => toHex(value, 'sha3Uncles')),
    totalDifficulty: nullable(raw.totalDifficulty, (value) => toBigInt(value, 'totalDifficulty')),
    transactions,
    uncles: toArray(raw.uncles ?? [], 'uncles').map((entry) => toHex(entry, 'uncle hash')),
    raw,
  };
}

/** Parses a transaction object from the wire. */
export function parseTransaction(raw: RpcObject): Transaction {
  return {
    hash: toHex(raw.hash, 'hash'),
    blockHash: nullable(raw.blockHash, (value) => toHex(value, 'blockHash')),
    blockNumber: nullable(raw.blockNumber, (value) => toBigInt(value, 'blockNumber')),
    transactionIndex: nullable(raw.transactionIndex, (value) =>
      toNumber(value, 'transactionIndex'),
    ),
    from: toHex(raw.from, 'from'),
    to: nullable(raw.to, (value) => toHex(value, 'to')),
    value: toBigInt(raw.value, 'value'),
    nonce: toNumber(raw.nonce, 'nonce'),
    gas: toBigInt(raw.gas, 'gas'),
    gasPrice: toBigInt(raw.gasPrice, 'gasPrice'),
    maxFeePerGas: optional(raw.maxFeePerGas, (value) => toBigInt(value, 'maxFeePerGas')),
    maxPriorityFeePerGas: optional(raw.maxPriorityFeePerGas, (value) =>
      toBigInt(value, 'maxPriorityFeePerGas'),
    ),
    input: toHex(raw.input, 'input'),
    type: optional(raw.type, (value) => toNumber(value, 'type')),
    chainId: optional(raw.chainId, (value) => toBigInt(value, 'chainId')),
    raw,
  };
}

/** Parses a receipt object from the wire. */
export function parseReceipt(raw: RpcObject): Receipt {
  return {
    transactionHash: toHex(raw.transactionHash, 'transactionHash'),
    transactionIndex: toNumber(raw.transactionIndex, 'transactionIndex'),
    blockHash: toHex(raw.blockHash, 'blockHash'),
    blockNumber: toBigInt(raw.blockNumber, 'blockNumber'),
    from: toHex(raw.from, 'from'),
    to: nullable(raw.to, (value) => toHex(value, 'to')),
    contractAddress: nullable(raw.contractAddress, (value) => toHex(value, 'contractAddress')),
    status: toNumber(raw.status, 'status'),
    gasUsed: toBigInt(raw.gasUsed, 'gasUsed'),
    cumulativeGasUsed: nullable(raw.cumulativeGasUsed, (value) =>
      toBigInt(value, 'cumulativeGasUsed'),
    ),
    effectiveGasPrice: optional(raw.effectiveGasPrice, (value) =>
      toBigInt(value, 'effectiveGasPrice'),
    ),
    type: optional(raw.type, (value) => toNumber(value, 'type')),
    logs: toArray(raw.logs, 'logs').map((entry) => parseLog(entry as RpcObject)),
    logsBloom: toHex(raw.logsBloom, 'logsBloom'),
    raw,
  };
}

/** Parses a log object from the wire. */
export function parseLog(raw: RpcObject): Log {
  return {
    address: toHex(raw.address, 'address'),
    topics: toArray(raw.topics, 'topics').map((topic) => toHex(topic, 'topic')),
    data: toHex(raw.data, 'data'),
    blockNumber: toBigInt(raw.blockNumber, 'blockNumber'),
    blockHash: toHex(raw.blockHash, 'blockHash'),
    transactionHash: toHex(raw.transactionHash, 'transactionHash'),
    transactionIndex: toNumber(raw.transactionIndex, 'transactionIndex'),
    logIndex: toNumber(raw.logIndex, 'logIndex'),
    removed: raw.removed === true,
  };
}

/** The node sent a value this client cannot read: a node bug or a different node, never user input. */
function unexpectedValue(field: string, value: unknown): ServerError {
  return new ServerError(
    `unexpected value for ${field} in the node's answer: ${JSON.stringify(value)}`,
  );
}

function toHex(value: unknown, field: string): Hex {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]*$/.test(value))
    throw unexpectedValue(field, value);
  return value as Hex;
}

function toBigInt(value: unknown, field: string): bigint {
  const hex = toHex(value, field);
  if (hex.length === 2) throw unexpectedValue(field, value);
  return BigInt(hex);
}

function toNumber(value: unknown, field: string): number {
  const parsed = toBigInt(value, field);
  if (parsed > BigInt(Number.MAX_SAFE_INTEGER)) throw unexpectedValue(field, value);
  return Number(parsed);
}

function toArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw unexpectedValue(field, value);
  return value;
}

function nullable<T>(value: unknown, parse: (value: unknown) => T): T | null {
  return value === null || value === undefined ? null : parse(value);
}

function optional<T>(value: unknown, parse: (value: unknown) => T): T | undefined {
  return value === null || value === undefined ? undefined : parse(value);
}
