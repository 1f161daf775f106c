/**
 * eth_* methods that consult the transaction pool as well as the chain: submitting a raw
 * transaction, the nonce at 'pending', and transactions that may still be pending.
 */
import { createTxFromRLP } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { ChainReader } from '../chain/chain-reader.js';
import { InvalidInputError, TransactionRejectedError } from '../errors.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { requireBlockNumber, type BlockSelector } from './block-selector.js';
import { formatTransaction, hex, locationInBlock, quantity } from './formatters.js';
import {
  addressSchema,
  blockSelectorSchema,
  dataSchema,
  hash32Schema,
  toAddress,
} from './hex-schemas.js';
import type { NodeServices } from './services.js';

/** Type of EIP-4844 blob transactions, which this node refuses. */
const BLOB_TX_TYPE = 3;

/**
 * The chain id a raw transaction was signed for, read from its encoding without the library's
 * checks (which would throw their own message first): a typed transaction's first field, or
 * EIP-155's `v = 35 + 2 * chainId (+1)` of a legacy one; undefined when unprotected or unreadable.
 */
function signedChainId(bytes: Uint8Array): bigint | undefined {
  try {
    if (bytes[0] <= 0x7f) {
      const fields = RLP.decode(bytes.subarray(1)) as Uint8Array[];
      return bytesToBigInt(fields[0]);
    }
    const fields = RLP.decode(bytes) as Uint8Array[];
    const v = bytesToBigInt(fields[6]);
    return v >= 35n ? (v - 35n) / 2n : undefined;
  } catch {
    return undefined;
  }
}

function decodeRawTransaction(chain: ChainReader, raw: string) {
  const bytes = hexToBytes(raw as PrefixedHexString);
  if (bytes.length === 0) throw new InvalidInputError('invalid raw transaction: empty');
  if (bytes[0] === BLOB_TX_TYPE) {
    throw new TransactionRejectedError('blob transactions (type 3) are not supported by this node');
  }
  const chainId = signedChainId(bytes);
  if (chainId !== undefined && chainId !== chain.chainId) {
    throw new TransactionRejectedError(
      `invalid chain id for signer: have ${chainId} want ${chain.chainId}`,
    );
  }
  try {
    return createTxFromRLP(bytes, { common: chain.common });
  } catch (error) {
    throw new InvalidInputError(
      `invalid raw transaction: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

export function ethPoolMethods({ chain, pool }: NodeServices): MethodDefinition[] {
  return [
    defineMethod<[string]>({
      name: 'eth_sendRawTransaction',
      params: [{ name: 'signedTransaction', schema: dataSchema }],
      handler: async ([raw]) => hex((await pool.add(decodeRawTransaction(chain, raw))).hash),
    }),
    defineMethod<[string, BlockSelector?]>({
      name: 'eth_getTransactionCount',
      params: [
        { name: 'address', schema: addressSchema },
        { name: 'block', schema: blockSelectorSchema, optional: true },
      ],
      handler: async ([who, selector]) =>
        selector === 'pending'
          ? quantity(await pool.pendingNonce(toAddress(who)))
          : quantity(await chain.getNonce(toAddress(who), requireBlockNumber(chain, selector))),
    }),
    defineMethod<[string]>({
      name: 'eth_getTransactionByHash',
      params: [{ name: 'transactionHash', schema: hash32Schema }],
      handler: ([hash]) => {
        const committed = chain.getTransaction(hexToBytes(hash as PrefixedHexString));
        const block = committed && chain.getBlockByNumber(committed.blockNumber);
        if (committed && block) {
          return formatTransaction(
            committed.tx,
            committed.sender,
            locationInBlock(block, committed.index),
          );
        }
        const pending = pool.getByHash(hash.toLowerCase());
        return pending ? formatTransaction(pending.tx, pending.sender) : null;
      },
    }),
  ];
}
