/**
 * The call/transaction object of eth_call, eth_estimateGas, eth_createAccessList and
 * debug_traceCall: its schema and its conversion to the chain's `CallRequest`. Unknown fields
 * are ignored (clients add `type`, `chainId`, ...).
 */
import type { AccessList } from '@ethereumjs/tx';
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { CallRequest } from '../chain/call.js';
import { InvalidInputError } from '../../shared/errors.js';
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
  },
  description: 'a call object {from, to, gas, gasPrice, value, data, accessList, ...}',
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
    },
    additionalProperties: false,
    description: 'an account override {balance, nonce, code, state, stateDiff}',
  },
  description:
    'state overrides: an object of addresses to {balance, nonce, code, state, stateDiff}',
};

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
  };
}

/**
 * The request of eth_call and eth_estimateGas: the call, run on the state with geth's
 * `overrides` applied when given.
 *
 * @throws InvalidInputError for what geth refuses in overrides beyond the schema.
 */
export function toOverriddenCallRequest(
  call: CallObject,
  overrides: StateOverrides | undefined,
): CallRequest {
  if (overrides === undefined) return toCallRequest(call);
  checkStateOverrides(overrides);
  return { ...toCallRequest(call), stateOverrides: overrides };
}

/** An access list in the library's form: lowercase hex, as it keys accounts and slots. */
export function toAccessList(list: AccessListJson | undefined): AccessList | undefined {
  return list?.map((entry) => ({
    address: entry.address.toLowerCase() as PrefixedHexString,
    storageKeys: entry.storageKeys.map((key) => key.toLowerCase() as PrefixedHexString),
  }));
}
