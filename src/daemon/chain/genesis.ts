/**
 * Genesis configuration: the built-in dev chain and the parser for geth-like genesis files.
 */
import { Address, hexToBytes, isHexString } from '@ethereumjs/util';
import type { PrefixedHexString } from '@ethereumjs/util';
import { InvalidInputError } from '../../shared/errors.js';
import {
  IDENTITY_REGISTRY_ADDRESS,
  identityRegistryGenesisAccount,
} from '../identity/registry-predeploy.js';

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

/** The well-known test mnemonic anvil and hardhat fund, so existing tools work unchanged. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * Private keys of {@link DEV_MNEMONIC} at m/44'/60'/0'/0/0 … /9, in order. Kept as constants so
 * start-up does not run PBKDF2 and BIP-32; a unit test derives them again and compares.
 */
export const DEV_PRIVATE_KEYS: readonly PrefixedHexString[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
];

/** Addresses of {@link DEV_PRIVATE_KEYS}, in the same order (checksummed). */
export const DEV_ADDRESSES: readonly PrefixedHexString[] = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
  '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955',
  '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
  '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
];

const ETHER = 10n ** 18n;
const GWEI = 10n ** 9n;

/** Overrides for {@link devGenesis}. */
export interface DevGenesisOptions {
  chainId?: bigint;
  minGasPrice?: bigint;
  timestamp?: bigint;
  /**
   * Whether block 0 holds the identity registry (default true). Earlier builds made dev chains
   * without it; their data directories are still opened (`loadGenesis` names that genesis).
   */
  identityRegistry?: boolean;
}

/**
 * The embedded dev chain: chain id 9000, block gas limit 30 000 000, a 1 gwei minimum gas price,
 * the ten {@link DEV_MNEMONIC} accounts with 10 000 ETH each, and the identity registry at
 * {@link IDENTITY_REGISTRY_ADDRESS}.
 */
export function devGenesis(options: DevGenesisOptions = {}): GenesisConfig {
  const alloc = new Map<string, GenesisAccount>();
  for (const address of DEV_ADDRESSES)
    alloc.set(address.toLowerCase(), { balance: 10_000n * ETHER });
  if (options.identityRegistry ?? true) {
    alloc.set(IDENTITY_REGISTRY_ADDRESS.toLowerCase(), identityRegistryGenesisAccount());
  }
  return {
    chainId: options.chainId ?? 9000n,
    gasLimit: 30_000_000n,
    minGasPrice: options.minGasPrice ?? GWEI,
    timestamp: options.timestamp ?? 0n,
    alloc,
  };
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
