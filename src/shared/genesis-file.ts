/**
 * Genesis files: the geth-like JSON document `daemon init --genesis` takes, read and checked
 * here so that `daemon init` refuses a bad file with the same message the daemon would give.
 */
import { readBoundedTextSync } from './bounded-read.js';
import { Address, hexToBytes, isHexString } from '@ethereumjs/util';
import type { PrefixedHexString } from '@ethereumjs/util';
import { InvalidInputError } from './errors.js';

/** One pre-funded or pre-deployed account. */
export interface GenesisAccount {
  balance: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Storage slot (32-byte key) to value, both as 0x-hex. */
  storage?: Record<string, string>;
}

export interface GenesisConfig {
  chainId: bigint;
  /** Block gas limit, for genesis and every block after it. */
  gasLimit: bigint;
  /** Minimum gas price in wei; also the floor of the EIP-1559 base fee. */
  minGasPrice: bigint;
  /** Unix seconds. */
  timestamp: bigint;
  extraData?: Uint8Array;
  coinbase?: Address;
  /** Lower-case 0x-hex address to account. */
  alloc: Map<string, GenesisAccount>;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a non-negative integer given as a JSON number, decimal string or 0x-hex string. */
function parseQuantity(value: unknown, field: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value);
  throw new InvalidInputError(
    `genesis: ${field} must be a non-negative integer (number, decimal or 0x-hex string)`,
  );
}

function parseBytes(value: unknown, field: string): Uint8Array {
  if (typeof value === 'string' && isHexString(value) && value.length % 2 === 0) {
    return hexToBytes(value);
  }
  throw new InvalidInputError(`genesis: ${field} must be 0x-prefixed hex of even length`);
}

function parseAddress(value: string, field: string): string {
  const hex = value.startsWith('0x') ? value : `0x${value}`;
  if (!/^0x[0-9a-fA-F]{40}$/.test(hex)) {
    throw new InvalidInputError(`genesis: ${field} is not a 20-byte address`);
  }
  return hex.toLowerCase();
}

function parseStorage(value: unknown, field: string): Record<string, string> {
  if (!isObject(value)) throw new InvalidInputError(`genesis: ${field} must be an object`);
  const storage: Record<string, string> = {};
  for (const [slot, word] of Object.entries(value)) {
    const key = parseBytes(slot, `${field} key ${slot}`);
    const data = parseBytes(word, `${field}[${slot}]`);
    if (key.length > 32 || data.length > 32) {
      throw new InvalidInputError(
        `genesis: ${field}[${slot}] key and value must be at most 32 bytes`,
      );
    }
    storage[slot] = word as string;
  }
  return storage;
}

function parseAccount(value: unknown, field: string): GenesisAccount {
  if (!isObject(value)) throw new InvalidInputError(`genesis: ${field} must be an object`);
  const account: GenesisAccount = {
    balance: value.balance === undefined ? 0n : parseQuantity(value.balance, `${field}.balance`),
  };
  if (value.nonce !== undefined) account.nonce = parseQuantity(value.nonce, `${field}.nonce`);
  if (value.code !== undefined) account.code = parseBytes(value.code, `${field}.code`);
  if (value.storage !== undefined)
    account.storage = parseStorage(value.storage, `${field}.storage`);
  return account;
}

/**
 * Parses a geth-like genesis JSON document: `{config: {chainId}, gasLimit, alloc, timestamp?,
 * extraData?, coinbase?, minGasPrice?}`. Throws `InvalidInputError` naming the bad field.
 */
export function parseGenesisFile(json: unknown): GenesisConfig {
  if (!isObject(json)) throw new InvalidInputError('genesis: the document must be a JSON object');
  if (!isObject(json.config)) throw new InvalidInputError('genesis: config must be an object');
  if (json.config.chainId === undefined)
    throw new InvalidInputError('genesis: config.chainId is required');
  const chainId = parseQuantity(json.config.chainId, 'config.chainId');
  if (chainId === 0n) throw new InvalidInputError('genesis: config.chainId must not be 0');
  if (json.gasLimit === undefined) throw new InvalidInputError('genesis: gasLimit is required');
  const gasLimit = parseQuantity(json.gasLimit, 'gasLimit');
  if (gasLimit < 21_000n) throw new InvalidInputError('genesis: gasLimit must be at least 21000');
  if (!isObject(json.alloc)) throw new InvalidInputError('genesis: alloc must be an object');
  const alloc = new Map<string, GenesisAccount>();
  for (const [address, account] of Object.entries(json.alloc)) {
    alloc.set(
      parseAddress(address, `alloc key ${address}`),
      parseAccount(account, `alloc[${address}]`),
    );
  }
  const config: GenesisConfig = {
    chainId,
    gasLimit,
    minGasPrice:
      json.minGasPrice === undefined ? 0n : parseQuantity(json.minGasPrice, 'minGasPrice'),
    timestamp: json.timestamp === undefined ? 0n : parseQuantity(json.timestamp, 'timestamp'),
    alloc,
  };
  if (json.extraData !== undefined) {
    config.extraData = parseBytes(json.extraData, 'extraData');
    if (config.extraData.length > 32) {
      throw new InvalidInputError('genesis: extraData must be at most 32 bytes');
    }
  }
  if (json.coinbase !== undefined) {
    if (typeof json.coinbase !== 'string') {
      throw new InvalidInputError('genesis: coinbase is not a 20-byte address');
    }
    config.coinbase = new Address(
      hexToBytes(parseAddress(json.coinbase, 'coinbase') as PrefixedHexString),
    );
  }
  return config;
}

/** Far above any genesis this node takes; a file past it (/dev/zero) is refused, not read on. */
const MAX_GENESIS_FILE_BYTES = 256 * 1024 * 1024;

export function readGenesisFile(path: string): GenesisConfig {
  let text: string;
  try {
    text = readBoundedTextSync(path, MAX_GENESIS_FILE_BYTES);
  } catch (error) {
    throw new InvalidInputError(`cannot read genesis file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(
      `genesis file ${path} is not valid JSON: ${(error as Error).message}`,
    );
  }
  return parseGenesisFile(json);
}
