/**
 * The eth_* methods that use the node's accounts: eth_accounts (public), and eth_sign,
 * eth_signTypedData (plain, _v3, _v4), eth_sendTransaction and eth_signTransaction, which sign
 * with an unlocked key and are
 * therefore served only to loopback clients and callers with the auth token (decisions §3),
 * so an unlocked account is never spendable from the network.
 */
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { AccountManager } from '../accounts/account-manager.js';
import { signDigestV27, signPersonalMessage } from '../accounts/personal-message.js';
import { parseTypedData, typedDataDigest, type TypedDataVersion } from '../accounts/typed-data.js';
import type { TransactionFields, TransactionSigner } from '../accounts/transaction-signer.js';
import { InvalidInputError } from '../../shared/errors.js';
import type { JsonSchema } from '../rpc/params.js';
import { defineMethod, type MethodDefinition, type NamespaceModule } from '../rpc/registry.js';
import { formatTransaction, hex } from './formatters.js';
import {
  callInput,
  callObjectSchema,
  toAccessList,
  toAuthorizationList,
  type CallObject,
} from './call-request.js';
import { addressSchema, dataSchema, uint64Schema } from './hex-schemas.js';

/** The call/transaction object of eth_sendTransaction and personal_sendTransaction (JSON). */
export interface TransactionObject extends CallObject {
  from: string;
  /** The spec's request sample spells `gas` so. */
  gasLimit?: string;
  chainId?: string;
}

/** Schema of {@link TransactionObject}; other fields (`type`, ...) are ignored as geth does. */
export const transactionObjectSchema: JsonSchema = {
  ...callObjectSchema,
  properties: {
    ...(callObjectSchema.properties as Record<string, JsonSchema>),
    gasLimit: uint64Schema,
    chainId: uint64Schema,
  },
  required: ['from'],
  description:
    'a transaction object {from, to, gas, gasPrice, value, data, nonce, accessList, ...}',
};

const toBigInt = (value: string | undefined): bigint | undefined =>
  value === undefined ? undefined : BigInt(value);

/**
 * The parsed fields of a validated transaction object.
 *
 * @throws InvalidInputError when `gas` and `gasLimit`, or `data` and `input`, disagree;
 *   TransactionRejectedError, in geth's words, for an empty authorization list or one without
 *   `to`.
 */
export function toTransactionFields(request: TransactionObject): TransactionFields {
  if (
    request.gas !== undefined &&
    request.gasLimit !== undefined &&
    request.gas !== request.gasLimit
  ) {
    throw new InvalidInputError('invalid params: both "gas" and "gasLimit" are set and differ');
  }
  return {
    from: request.from,
    to: request.to ?? undefined,
    gasLimit: toBigInt(request.gas ?? request.gasLimit),
    gasPrice: toBigInt(request.gasPrice),
    maxFeePerGas: toBigInt(request.maxFeePerGas),
    maxPriorityFeePerGas: toBigInt(request.maxPriorityFeePerGas),
    value: toBigInt(request.value),
    data: callInput(request),
    nonce: toBigInt(request.nonce),
    chainId: toBigInt(request.chainId),
    accessList: toAccessList(request.accessList),
    authorizationList: toAuthorizationList(request),
  };
}

/**
 * `eth_signTypedData_v4`, `_v3` and the unversioned name geth's signer uses, all called as
 * (address, typedData); the typed data may be an object or its JSON text. The unversioned
 * method signs as v4 (MetaMask's legacy v1 array form, with the arguments the other way round,
 * is refused by the address check).
 */
function signTypedDataMethod(
  name: string,
  version: TypedDataVersion,
  accounts: AccountManager,
): MethodDefinition {
  return defineMethod<[string, unknown]>({
    name,
    access: 'loopback-or-token',
    params: [
      { name: 'address', schema: addressSchema },
      {
        name: 'typedData',
        schema: {
          type: ['object', 'string'],
          description: 'EIP-712 typed data {types, primaryType, domain, message}, or its JSON text',
        },
      },
    ],
    handler: async ([address, typedData]) => {
      const digest = typedDataDigest(parseTypedData(typedData), version);
      return hex(signDigestV27(digest, await accounts.unlockedKey(address)));
    },
  });
}

/**
 * The account methods of the eth namespace, registered beside the core eth module.
 *
 * @example registry.register(ethAccountsNamespace(accounts, signer));
 */
export function ethAccountsNamespace(
  accounts: AccountManager,
  signer: TransactionSigner,
): NamespaceModule {
  return {
    namespace: 'eth',
    access: 'public',
    methods: [
      defineMethod<[]>({ name: 'eth_accounts', params: [], handler: () => accounts.list() }),
      defineMethod<[string, string]>({
        name: 'eth_sign',
        access: 'loopback-or-token',
        params: [
          { name: 'address', schema: addressSchema },
          { name: 'message', schema: dataSchema },
        ],
        handler: async ([address, message]) => {
          const key = await accounts.unlockedKey(address);
          return hex(signPersonalMessage(hexToBytes(message as PrefixedHexString), key));
        },
      }),
      signTypedDataMethod('eth_signTypedData', 'v4', accounts),
      signTypedDataMethod('eth_signTypedData_v3', 'v3', accounts),
      signTypedDataMethod('eth_signTypedData_v4', 'v4', accounts),
      defineMethod<[TransactionObject]>({
        name: 'eth_sendTransaction',
        access: 'loopback-or-token',
        params: [{ name: 'transaction', schema: transactionObjectSchema }],
        handler: ([request]) => signer.sendWithUnlockedKey(toTransactionFields(request)),
      }),
      defineMethod<[TransactionObject]>({
        name: 'eth_signTransaction',
        access: 'loopback-or-token',
        params: [{ name: 'transaction', schema: transactionObjectSchema }],
        handler: async ([request]) => {
          const signed = await signer.signWithUnlockedKey(toTransactionFields(request));
          return {
            raw: hex(signed.serialize()),
            tx: formatTransaction(signed, signed.getSenderAddress()),
          };
        },
      }),
    ],
  };
}
