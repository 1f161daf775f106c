/**
 * JSON Schemas of the Ethereum JSON-RPC value types, strict as decisions §5 asks: QUANTITY
 * without leading zeros, DATA of even length, addresses of exactly 20 bytes. Each carries a
 * `description` that completes the sentence "must be ..." in parameter errors.
 */
import { Address, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { JsonSchema } from '../rpc/params.js';

/**
 * A QUANTITY of at most `bits` bits: the protocol range of the field (uint64 for gas, nonces,
 * chain ids, block numbers and indexes; uint256 for values and fees). Checked by the number of
 * digits, so no value outside the range ever reaches a library that would throw on it.
 */
function boundedQuantitySchema(bits: 64 | 256): JsonSchema {
  const digits = bits / 4;
  return {
    type: 'string',
    pattern: `^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,${digits - 1}})$`,
    description: `a hex QUANTITY of at most ${bits} bits (uint${bits}: 0x-prefixed, no leading zeros, at most 2^${bits}-1)`,
  };
}

/** Gas, gas limits, nonces, chain ids, block numbers, indexes. */
export const uint64Schema: JsonSchema = boundedQuantitySchema(64);

/** Values and fees (value, gasPrice, maxFeePerGas, maxPriorityFeePerGas). */
export const uint256Schema: JsonSchema = boundedQuantitySchema(256);

export const dataSchema: JsonSchema = {
  type: 'string',
  pattern: '^0x([0-9a-fA-F]{2})*$',
  description: 'hex DATA (0x-prefixed, even number of digits)',
};

export const addressSchema: JsonSchema = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'a 20-byte address (0x followed by 40 hex digits)',
};

export const hash32Schema: JsonSchema = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{64}$',
  description: 'a 32-byte hash (0x followed by 64 hex digits)',
};

export const booleanSchema: JsonSchema = { type: 'boolean', description: 'a boolean' };

export const blockTagSchema: JsonSchema = {
  type: 'string',
  enum: ['earliest', 'latest', 'pending', 'safe', 'finalized'],
  description: 'a block tag',
};

/** A block number or tag (no hash). */
export const blockNumberOrTagSchema: JsonSchema = {
  anyOf: [uint64Schema, blockTagSchema],
  description:
    'a block number (hex uint64 QUANTITY) or one of the tags earliest, latest, pending, safe, finalized',
};

/** A block number, tag, block hash, or the EIP-1898 object form. */
export const blockSelectorSchema: JsonSchema = {
  anyOf: [
    uint64Schema,
    blockTagSchema,
    hash32Schema,
    {
      type: 'object',
      properties: { blockHash: hash32Schema, requireCanonical: { type: 'boolean' } },
      required: ['blockHash'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { blockNumber: { anyOf: [uint64Schema, blockTagSchema] } },
      required: ['blockNumber'],
      additionalProperties: false,
    },
  ],
  description:
    'a block number (hex uint64 QUANTITY), a tag (earliest, latest, pending, safe, finalized), a 32-byte block hash, or an EIP-1898 object {blockHash} / {blockNumber}',
};

/** The `Address` of a value that passed `addressSchema`. */
export function toAddress(value: string): Address {
  return new Address(hexToBytes(value as PrefixedHexString));
}
