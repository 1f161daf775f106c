/** eth_* methods that read account state at a block, or execute against it. */
import { hexToBytes } from '@ethereumjs/util';
import { InvalidInputError, ServerError } from '../../shared/errors.js';
import { callerOf, defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { requireBlockNumber, type BlockSelector } from './block-selector.js';
import { JsonText } from '../rpc/dispatcher.js';
import {
  blockOverridesSchema,
  callObjectSchema,
  stateOverridesSchema,
  toCallRequest,
  toOverriddenCallRequest,
  type BlockOverridesJson,
  type CallObject,
} from './call-request.js';
import type { StateOverrides } from '../chain/state-overrides.js';
import { hex, quantity } from './formatters.js';
import { unprefixedHex } from '../chain/byte-strings.js';
import { addressSchema, blockSelectorSchema, toAddress } from './hex-schemas.js';
import type { ChainView } from './services.js';

const address = { name: 'address', schema: addressSchema };
const block = { name: 'block', schema: blockSelectorSchema, optional: true };
const stateOverrides = { name: 'stateOverrides', schema: stateOverridesSchema, optional: true };
const blockOverrides = { name: 'blockOverrides', schema: blockOverridesSchema, optional: true };

/** Storage keys: QUANTITY-like or 32-byte DATA; at most 32 bytes. */
const storageKeySchema = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{1,64}$',
  description: 'a storage key (0x followed by 1 to 64 hex digits)',
};

function slotBytes(key: string): Uint8Array {
  const digits = key.slice(2);
  return hexToBytes(`0x${digits.length % 2 === 0 ? digits : `0${digits}`}`);
}

/** geth's bound on the slots of one eth_getStorageValues request, over all its accounts. */
export const MAX_STORAGE_VALUES_SLOTS = 1024;

const storageRequestsSchema = {
  type: 'object',
  propertyNames: addressSchema,
  additionalProperties: {
    type: 'array',
    items: storageKeySchema,
    description: 'the storage keys to read of this account',
  },
  description: 'an object {address: [storage keys]}',
};

/** The requested slots, refused in geth's words when there are none or too many. */
function checkSlotCount(requests: Record<string, string[]>): void {
  let slots = 0;
  for (const keys of Object.values(requests)) slots += keys.length;
  if (slots === 0) throw new InvalidInputError('empty request');
  if (slots > MAX_STORAGE_VALUES_SLOTS) {
    throw new InvalidInputError(`too many slots (max ${MAX_STORAGE_VALUES_SLOTS})`);
  }
}

type Proof = Awaited<ReturnType<ChainView['chain']['getProof']>>;

/**
 * EIP-1186 in geth's form: one storage entry per requested key (keys echoed as given), values as
 * QUANTITY; an account that does not exist proves every key empty with an empty proof.
 */
function formatProof(proof: Proof, keys: readonly string[]): Record<string, unknown> {
  return {
    ...proof,
    storageProof: keys.map((key, index) => {
      const entry = proof.storageProof[index];
      return {
        key,
        value: entry ? quantity(BigInt(entry.value)) : '0x0',
        proof: entry ? entry.proof : [],
      };
    }),
  };
}

export function ethStateMethods({ chain }: ChainView): MethodDefinition[] {
  return [
    defineMethod<[string, BlockSelector?]>({
      name: 'eth_getBalance',
      params: [address, block],
      handler: ([who, selector]) => {
        const blockNumber = requireBlockNumber(chain, selector);
        const cached = chain.cachedHeadBalance(who, blockNumber);
        return cached !== undefined
          ? quantity(cached)
          : chain.getBalance(toAddress(who), blockNumber).then(quantity);
      },
    }),
    defineMethod<[string, BlockSelector?]>({
      name: 'eth_getAccountInfo',
      params: [address, block],
      handler: async ([who, selector]) => {
        const blockNumber = requireBlockNumber(chain, selector);
        const account = toAddress(who);
        const [state, code] = await Promise.all([
          chain.getAccount(account, blockNumber),
          chain.getCode(account, blockNumber),
        ]);
        return {
          balance: quantity(state?.balance ?? 0n),
          nonce: quantity(state?.nonce ?? 0n),
          code: hex(code),
        };
      },
    }),
    defineMethod<[string, BlockSelector?]>({
      name: 'eth_getCode',
      params: [address, block],
      handler: async ([who, selector]) =>
        hex(await chain.getCode(toAddress(who), requireBlockNumber(chain, selector))),
    }),
    defineMethod<[string, string, BlockSelector?]>({
      name: 'eth_getStorageAt',
      params: [address, { name: 'position', schema: storageKeySchema }, block],
      handler: async ([who, position, selector]) =>
        hex(
          await chain.getStorageAt(
            toAddress(who),
            slotBytes(position),
            requireBlockNumber(chain, selector),
          ),
        ),
    }),
    defineMethod<[Record<string, string[]>, BlockSelector?]>({
      name: 'eth_getStorageValues',
      params: [{ name: 'requests', schema: storageRequestsSchema }, block],
      handler: async ([requests, selector]) => {
        checkSlotCount(requests);
        const number = requireBlockNumber(chain, selector);
        const values: Record<string, string[]> = {};
        for (const [who, keys] of Object.entries(requests)) {
          const account = toAddress(who);
          values[who.toLowerCase()] = await Promise.all(
            keys.map(async (key) => hex(await chain.getStorageAt(account, slotBytes(key), number))),
          );
        }
        return values;
      },
    }),
    defineMethod<[string, string[], BlockSelector?]>({
      name: 'eth_getProof',
      params: [
        address,
        {
          name: 'storageKeys',
          schema: {
            type: 'array',
            items: storageKeySchema,
            description: 'an array of storage keys',
          },
        },
        block,
      ],
      handler: async ([who, keys, selector]) =>
        formatProof(
          await chain.getProof(
            toAddress(who),
            keys.map(slotBytes),
            requireBlockNumber(chain, selector),
          ),
          keys,
        ),
    }),
    defineMethod<[CallObject, BlockSelector?, StateOverrides?, BlockOverridesJson?]>({
      name: 'eth_call',
      params: [
        { name: 'transaction', schema: callObjectSchema },
        block,
        stateOverrides,
        blockOverrides,
      ],
      handler: async ([call, selector, overrides, headerOverrides], context) => {
        const result = await chain.call(
          toOverriddenCallRequest(call, overrides, headerOverrides),
          requireBlockNumber(chain, selector),
          callerOf(context),
        );
        if (result.error) throw new ServerError(result.error);
        // Hex needs no escaping, and in pieces a large result is never copied into one flat
        // string with its quotes: sent as is, a megabyte of return data is not scanned again.
        return new JsonText(['"0x', unprefixedHex(result.returnData), '"']);
      },
    }),
    defineMethod<[CallObject, BlockSelector?]>({
      name: 'eth_createAccessList',
      params: [{ name: 'transaction', schema: callObjectSchema }, block],
      handler: async ([call, selector], context) => {
        const result = await chain.createAccessList(
          toCallRequest(call),
          requireBlockNumber(chain, selector),
          callerOf(context),
        );
        return {
          accessList: result.accessList,
          gasUsed: quantity(result.gasUsed),
          ...(result.error === undefined ? {} : { error: result.error }),
        };
      },
    }),
    defineMethod<[CallObject, BlockSelector?, StateOverrides?, BlockOverridesJson?]>({
      name: 'eth_estimateGas',
      params: [
        { name: 'transaction', schema: callObjectSchema },
        block,
        stateOverrides,
        blockOverrides,
      ],
      handler: async ([call, selector, overrides, headerOverrides], context) =>
        quantity(
          await chain.estimateGas(
            toOverriddenCallRequest(call, overrides, headerOverrides),
            requireBlockNumber(chain, selector),
            callerOf(context),
          ),
        ),
    }),
  ];
}
