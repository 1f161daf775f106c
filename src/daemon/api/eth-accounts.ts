/**
 * The eth_* methods that use the node's accounts: eth_accounts (public), and eth_sign,
 * eth_sendTransaction and eth_signTransaction, which sign with an unlocked key and are
 * therefore served only to loopback clients and callers with the auth token (decisions §3),
 * so an unlocked account is never spendable from the network.
 */
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { AccountManager } from '../accounts/account-manager.js';
import { signPersonalMessage } from '../accounts/personal-message.js';
import type { TransactionFields, TransactionSigner } from '../accounts/transaction-signer.js';
import { InvalidInputError } from '../errors.js';
import type { JsonSchema } from '../rpc/params.js';
import { defineMethod, type NamespaceModule } from '../rpc/registry.js';
import { formatTransaction, hex } from './formatters.js';
import { callInput, callObjectSchema, type CallObject } from './call-request.js';
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
  description: 'a transaction object {from, to, gas, gasPrice, value, data, nonce, ...}',
};

const toBigInt = (value: string | undefined): bigint | undefined =>
  value === undefined ? undefined : BigInt(value);

/**
 * The parsed fields of a validated transaction object.
 *
 * @throws InvalidInputError when `gas` and `gasLimit`, or `data` and `input`, disagree.
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
  };
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
