/**
 * The call/transaction object of eth_call, eth_estimateGas, eth_createAccessList and
 * debug_traceCall: its schema and its conversion to the chain's `CallRequest`. Unknown fields
 * are ignored (clients add `type`, `chainId`, ...).
 */
import type { AccessList } from '@ethereumjs/tx';
import {
  createZeroAddress,
  hexToBytes,
  setLengthLeft,
  type EOACode7702AuthorizationList,
  type PrefixedHexString,
} from '@ethereumjs/util';
import type { BlockOverrides } from '../chain/block-overrides.js';
import type { CallRequest } from '../chain/call.js';
import type { RpcAuthorization } from '../txpool/transaction-json.js';
import { checksumAddress } from '../chain/checksum-address.js';
import { InvalidInputError, TransactionRejectedError } from '../../shared/errors.js';
import { checkStateOverrides, type StateOverrides } from '../chain/state-overrides.js';
import type { JsonSchema } from '../rpc/params.js';
import {
  addressSchema,
  dataSchema,
  hash32Schema,
  toAddress,
  uint256Schema,
  uint64Schema,
} from './hex-schemas.js';

/** An EIP-2930 access list as JSON: the accounts and slots a transaction starts with warm. */
export type AccessListJson = Array<{ address: string; storageKeys: string[] }>;

/** An EIP-7702 authorization list as JSON, in geth's form: numbers as quantities. */
export type AuthorizationListJson = RpcAuthorization[];

export interface CallObject {
  from?: string;
  to?: string | null;
  gas?: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  value?: string;
  data?: string;
  input?: string;
  nonce?: string;
  accessList?: AccessListJson;
  authorizationList?: AuthorizationListJson;
}

export const callObjectSchema: JsonSchema = {
  type: 'object',
  properties: {
    from: addressSchema,
    to: { anyOf: [addressSchema, { type: 'null' }], description: 'a 20-byte address or null' },
    gas: uint64Schema,
    gasPrice: uint256Schema,
    maxFeePerGas: uint256Schema,
    maxPriorityFeePerGas: uint256Schema,
    value: uint256Schema,
    data: dataSchema,
    input: dataSchema,
    nonce: uint64Schema,
    accessList: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          address: addressSchema,
          storageKeys: { type: 'array', items: hash32Schema },
        },
        required: ['address', 'storageKeys'],
        description: 'an access list entry {address, storageKeys}',
      },
      description: 'an EIP-2930 access list [{address, storageKeys: [32-byte keys]}]',
    },
    authorizationList: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          chainId: uint256Schema,
          address: addressSchema,
          nonce: uint64Schema,
          yParity: uint64Schema,
          r: uint256Schema,
          s: uint256Schema,
        },
        required: ['chainId', 'address', 'nonce', 'yParity', 'r', 's'],
        description: 'an authorization {chainId, address, nonce, yParity, r, s}',
      },
      description: 'an EIP-7702 authorization list [{chainId, address, nonce, yParity, r, s}]',
    },
  },
  description:
    'a call object {from, to, gas, gasPrice, value, data, accessList, authorizationList, ...}',
};

const slotsSchema: JsonSchema = {
  type: 'object',
  propertyNames: hash32Schema,
  additionalProperties: hash32Schema,
  description: 'an object of 32-byte slots to 32-byte values',
};

/**
 * geth's state override set: the third parameter of eth_call and eth_estimateGas, and
 * debug_traceCall's `stateOverrides`.
 */
export const stateOverridesSchema: JsonSchema = {
  type: 'object',
  propertyNames: addressSchema,
  additionalProperties: {
    type: 'object',
    properties: {
      balance: uint256Schema,
      nonce: uint64Schema,
      code: dataSchema,
      state: slotsSchema,
      stateDiff: slotsSchema,
      movePrecompileToAddress: addressSchema,
    },
    additionalProperties: false,
    description:
      'an account override {balance, nonce, code, state, stateDiff, movePrecompileToAddress}',
  },
  description:
    'state overrides: an object of addresses to {balance, nonce, code, state, stateDiff, movePrecompileToAddress}',
};

/** geth's block overrides as JSON (`coinbase` and `random` are older geth's names). */
export interface BlockOverridesJson {
  number?: string;
  time?: string;
  gasLimit?: string;
  feeRecipient?: string;
  coinbase?: string;
  prevRandao?: string;
  random?: string;
  baseFeePerGas?: string;
  baseFee?: string;
  blobBaseFee?: string;
  difficulty?: string;
  beaconRoot?: string;
  withdrawals?: unknown[];
}

/** A 32-byte word given as a hash or as a QUANTITY (viem sends `prevRandao` as a number). */
const wordSchema: JsonSchema = {
  anyOf: [hash32Schema, uint256Schema],
  description: 'a 32-byte hash or a hex QUANTITY of at most 256 bits',
};

/** geth's block overrides: the fourth parameter of eth_call and eth_estimateGas. */
export const blockOverridesSchema: JsonSchema = {
  type: 'object',
  properties: {
    number: uint64Schema,
    time: uint64Schema,
    gasLimit: uint64Schema,
    feeRecipient: addressSchema,
    coinbase: addressSchema,
    prevRandao: wordSchema,
    random: wordSchema,
    baseFeePerGas: uint256Schema,
    baseFee: uint256Schema,
    blobBaseFee: uint256Schema,
    difficulty: uint256Schema,
    beaconRoot: hash32Schema,
    withdrawals: { type: 'array', description: 'an array of withdrawals' },
  },
  additionalProperties: false,
  description:
    'block overrides {number, time, gasLimit, feeRecipient, prevRandao, baseFeePerGas, blobBaseFee}',
};

/**
 * One field given under either of its names (a newer and an older geth's).
 *
 * @throws InvalidInputError when both are given and differ.
 */
function eitherName(
  json: BlockOverridesJson,
  name: keyof BlockOverridesJson,
  alias: keyof BlockOverridesJson,
): string | undefined {
  const value = json[name] as string | undefined;
  const aliased = json[alias] as string | undefined;
  if (value !== undefined && aliased !== undefined && BigInt(value) !== BigInt(aliased)) {
    throw new InvalidInputError(
      `invalid params: block overrides "${name}" and "${alias}" are both set and differ`,
    );
  }
  return value ?? aliased;
}

/**
 * Block overrides in the chain's form. `difficulty` is accepted and has no effect (after the
 * merge DIFFICULTY reads `prevRandao`), as in geth.
 *
 * @throws InvalidInputError for `withdrawals` and `beaconRoot`, which a call has no use for.
 */
export function toBlockOverrides(json: BlockOverridesJson): BlockOverrides {
  for (const field of ['withdrawals', 'beaconRoot'] as const) {
    if (json[field] !== undefined) {
      throw new InvalidInputError(
        `invalid params: block override "${field}" is not supported for this RPC method`,
      );
    }
  }
  const feeRecipient = eitherName(json, 'feeRecipient', 'coinbase');
  const prevRandao = eitherName(json, 'prevRandao', 'random');
  return {
    number: toBigInt(json.number),
    time: toBigInt(json.time),
    gasLimit: toBigInt(json.gasLimit),
    feeRecipient: feeRecipient === undefined ? undefined : toAddress(feeRecipient).bytes,
    prevRandao:
      prevRandao === undefined ? undefined : setLengthLeft(hexToBytes(evenHex(prevRandao)), 32),
    baseFeePerGas: toBigInt(eitherName(json, 'baseFeePerGas', 'baseFee')),
    blobBaseFee: toBigInt(json.blobBaseFee),
  };
}

/** A hex string of an even number of digits, for a QUANTITY read as bytes. */
function evenHex(value: string): PrefixedHexString {
  const digits = value.slice(2);
  return `0x${digits.length % 2 === 0 ? digits : `0${digits}`}`;
}

const toBigInt = (value: string | undefined) => (value === undefined ? undefined : BigInt(value));

/**
 * The input bytes of a call or transaction object, which clients send as `input` or `data`.
 *
 * @throws InvalidInputError when both are set and differ.
 */
export function callInput(call: Pick<CallObject, 'data' | 'input'>): Uint8Array | undefined {
  if (call.data !== undefined && call.input !== undefined && call.data !== call.input) {
    throw new InvalidInputError(
      'invalid params: both "data" and "input" are set and differ; send only "input"',
    );
  }
  const input = call.input ?? call.data;
  return input === undefined ? undefined : hexToBytes(input as PrefixedHexString);
}

export function toCallRequest(call: CallObject): CallRequest {
  if (
    call.gasPrice !== undefined &&
    (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined)
  ) {
    throw new InvalidInputError(
      'invalid params: both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    );
  }
  const maxFeePerGas = toBigInt(call.maxFeePerGas);
  const maxPriorityFeePerGas = toBigInt(call.maxPriorityFeePerGas);
  if (
    maxFeePerGas !== undefined &&
    maxPriorityFeePerGas !== undefined &&
    maxPriorityFeePerGas > maxFeePerGas
  ) {
    throw new InvalidInputError(
      `max priority fee per gas higher than max fee per gas: maxPriorityFeePerGas ${maxPriorityFeePerGas}, maxFeePerGas ${maxFeePerGas}`,
    );
  }
  return {
    from: call.from === undefined ? undefined : toAddress(call.from),
    to: call.to === undefined || call.to === null ? undefined : toAddress(call.to),
    gas: toBigInt(call.gas),
    gasPrice: toBigInt(call.gasPrice),
    maxFeePerGas,
    maxPriorityFeePerGas,
    value: toBigInt(call.value),
    data: callInput(call),
    nonce: toBigInt(call.nonce),
    accessList: toAccessList(call.accessList),
    authorizationList: toAuthorizationList(call),
  };
}

/**
 * The authorization list of a call, which then runs as the EIP-7702 transaction it stands for
 * (as geth runs it): the authorizations are applied and charged, so eth_estimateGas counts them.
 *
 * @throws TransactionRejectedError, in geth's words, for a list that is empty or without `to`.
 */
export function toAuthorizationList(call: CallObject): EOACode7702AuthorizationList | undefined {
  const list = call.authorizationList;
  if (list === undefined) return undefined;
  const sender = checksumAddress(
    call.from === undefined ? createZeroAddress() : toAddress(call.from),
  );
  if (list.length === 0) {
    throw new TransactionRejectedError(
      `EIP-7702 transaction with empty auth list (sender ${sender})`,
    );
  }
  if (call.to === undefined || call.to === null) {
    throw new TransactionRejectedError(
      `EIP-7702 transaction cannot be used to create contract (sender ${sender})`,
    );
  }
  return list.map((entry) => ({
    chainId: entry.chainId as PrefixedHexString,
    address: entry.address.toLowerCase() as PrefixedHexString,
    nonce: entry.nonce as PrefixedHexString,
    yParity: entry.yParity as PrefixedHexString,
    r: entry.r as PrefixedHexString,
    s: entry.s as PrefixedHexString,
  }));
}

/**
 * The request of eth_call and eth_estimateGas: the call, run on the state with geth's
 * `overrides` applied and in a block with its `blockOverrides`, when given.
 *
 * @throws InvalidInputError for what geth refuses in overrides beyond the schema.
 */
export function toOverriddenCallRequest(
  call: CallObject,
  overrides: StateOverrides | undefined,
  blockOverrides?: BlockOverridesJson,
): CallRequest {
  if (overrides === undefined && blockOverrides === undefined) return toCallRequest(call);
  if (overrides !== undefined) checkStateOverrides(overrides);
  return {
    ...toCallRequest(call),
    stateOverrides: overrides,
    blockOverrides: blockOverrides === undefined ? undefined : toBlockOverrides(blockOverrides),
  };
}

/** An access list in the library's form: lowercase hex, as it keys accounts and slots. */
export function toAccessList(list: AccessListJson | undefined): AccessList | undefined {
  return list?.map((entry) => ({
    address: entry.address.toLowerCase() as PrefixedHexString,
    storageKeys: entry.storageKeys.map((key) => key.toLowerCase() as PrefixedHexString),
  }));
}
