/**
 * eth_* methods that consult the transaction pool as well as the chain: submitting a raw
 * transaction, the nonce at 'pending', and transactions that may still be pending.
 */
import {
  TransactionType,
  create1559FeeMarketTxFromBytesArray,
  createAccessList2930TxFromBytesArray,
  createEOACode7702TxFromBytesArray,
  createLegacyTxFromBytesArray,
  createTxFromRLP,
  type TxOptions,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { ChainReader } from '../chain/chain-reader.js';
import { InvalidInputError, TransactionRejectedError } from '../../shared/errors.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { requireBlockNumber, type BlockSelector } from './block-selector.js';
import { formatReceipt, formatTransaction, hex, locationInBlock, quantity } from './formatters.js';
import { inclusionWaitMs, sendAndAwaitReceipt } from './receipt-wait.js';
import {
  addressSchema,
  blockSelectorSchema,
  dataSchema,
  hash32Schema,
  toAddress,
  uint64Schema,
} from './hex-schemas.js';
import type { NodeServices } from './services.js';

/** Type of EIP-4844 blob transactions, which this node refuses. */
const BLOB_TX_TYPE = 3;

/**
 * Decodes a raw transaction's fields once, for the checks below and the library's constructor
 * alike; undefined when they are not an RLP list (the library then says what is wrong).
 */
function rlpFields(bytes: Uint8Array): unknown[] | undefined {
  try {
    // A typed transaction's fields follow its type byte; a legacy one is all fields.
    const fields: unknown = RLP.decode(bytes[0] <= 0x7f ? bytes.subarray(1) : bytes);
    return Array.isArray(fields) ? fields : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The chain id a raw transaction was signed for, read from its fields without the library's
 * checks (which would throw their own message first): a typed transaction's first field, or
 * EIP-155's `v = 35 + 2 * chainId (+1)` of a legacy one; undefined when unprotected or unreadable.
 */
function signedChainId(bytes: Uint8Array, fields: unknown[]): bigint | undefined {
  const field = bytes[0] <= 0x7f ? fields[0] : fields[6];
  if (!(field instanceof Uint8Array)) return undefined;
  const value = bytesToBigInt(field);
  if (bytes[0] <= 0x7f) return value;
  return value >= 35n ? (value - 35n) / 2n : undefined;
}

/**
 * Whether a typed transaction's chain id is written without leading zero bytes. EthereumJS checks
 * every other number of a transaction for them but reads this one as given and encodes it back
 * minimal, so such a transaction would be pooled under a hash that is not that of the bytes sent;
 * geth refuses it as non-canonical RLP.
 */
function chainIdIsMinimal(bytes: Uint8Array, fields: unknown[]): boolean {
  const field = fields[0];
  return bytes[0] > 0x7f || !(field instanceof Uint8Array) || field[0] !== 0;
}

/** Position of the access list in the fields of the typed transactions that carry one. */
const ACCESS_LIST_FIELD: Readonly<Record<number, number>> = { 1: 7, 2: 8, 4: 8 };

/**
 * Whether a typed transaction's access list is a list of `[address, [storage keys]]` pairs.
 * EthereumJS reads one given as a byte string as if it were a list and fails with a runtime
 * TypeError, so the shape is checked here first.
 */
function accessListIsWellFormed(bytes: Uint8Array, fields: unknown[]): boolean {
  const index = ACCESS_LIST_FIELD[bytes[0]];
  if (index === undefined || fields.length <= index) return true;
  const list: unknown = fields[index];
  return (
    Array.isArray(list) &&
    list.every(
      (item: unknown) =>
        Array.isArray(item) &&
        item.length === 2 &&
        item[0] instanceof Uint8Array &&
        Array.isArray(item[1]) &&
        (item[1] as unknown[]).every((key) => key instanceof Uint8Array),
    )
  );
}

/** The library's constructor from decoded fields, by transaction type (the first byte). */
function fromFields(
  type: number,
): ((fields: never, options: TxOptions) => TypedTransaction) | undefined {
  switch (type) {
    case TransactionType.AccessListEIP2930:
      return createAccessList2930TxFromBytesArray;
    case TransactionType.FeeMarketEIP1559:
      return create1559FeeMarketTxFromBytesArray;
    case TransactionType.EOACodeEIP7702:
      return createEOACode7702TxFromBytesArray;
    default:
      return type > 0x7f ? createLegacyTxFromBytesArray : undefined;
  }
}

/**
 * What is wrong with a raw transaction EthereumJS refused, in our words: its messages carry
 * the library's own context, and a runtime error's text says nothing to a caller.
 */
const DECODE_PROBLEMS: ReadonlyArray<[RegExp, (match: RegExpExecArray) => string]> = [
  [/RLP/, () => 'not valid RLP'],
  [/TypedTransaction with ID (\d+) unknown/, (m) => `transaction type ${m[1]} not supported`],
  [/only expecting .* values/i, () => 'wrong number of fields for its type'],
  [/^(\w+) cannot be an array/, (m) => `field ${m[1]} must be a byte string, not a list`],
  [/^(\w+) cannot have leading zeroes/, (m) => `field ${m[1]} has leading zero bytes`],
  [/address length/i, () => 'an address is not 20 bytes long'],
  [/storage slot length/i, () => 'an access list storage key is not 32 bytes long'],
  [/access list item/i, () => 'an access list entry is not an [address, storage keys] pair'],
  [/MAX_UINT64/, () => 'a nonce or gas limit is out of the uint64 range'],
  [/MAX_INTEGER/, () => 'a value or fee (or gas × fee) is out of the uint256 range'],
];

function decodeProblem(error: unknown): string {
  if (!(error instanceof Error) || error instanceof TypeError || error instanceof RangeError) {
    return 'malformed transaction encoding';
  }
  for (const [pattern, describe] of DECODE_PROBLEMS) {
    const match = pattern.exec(error.message);
    if (match !== null) return describe(match);
  }
  return 'malformed transaction encoding';
}

/** A raw transaction decoded, with the bytes it came from (its encoding, for the pool). */
function decodeRawTransaction(
  chain: ChainReader,
  raw: string,
): { tx: TypedTransaction; bytes: Uint8Array } {
  const bytes = hexToBytes(raw as PrefixedHexString);
  if (bytes.length === 0) throw new InvalidInputError('invalid raw transaction: empty');
  if (bytes[0] === BLOB_TX_TYPE) {
    throw new TransactionRejectedError('blob transactions (type 3) are not supported by this node');
  }
  const fields = rlpFields(bytes);
  const chainId = fields && signedChainId(bytes, fields);
  if (chainId !== undefined && chainId !== chain.chainId) {
    throw new TransactionRejectedError(
      `invalid chain id for signer: have ${chainId} want ${chain.chainId}`,
    );
  }
  if (fields !== undefined && !chainIdIsMinimal(bytes, fields)) {
    throw new InvalidInputError('invalid raw transaction: field chainId has leading zero bytes');
  }
  if (fields !== undefined && !accessListIsWellFormed(bytes, fields)) {
    throw new InvalidInputError(
      'invalid raw transaction: the access list must be a list of [address, storage keys] pairs',
    );
  }
  try {
    const construct = fields && fromFields(bytes[0]);
    // Anything not decoded here goes to the library whole, which names what is wrong with it.
    const tx = construct
      ? construct(fields as never, { common: chain.common })
      : createTxFromRLP(bytes, { common: chain.common });
    return { tx, bytes };
  } catch (error) {
    throw new InvalidInputError(`invalid raw transaction: ${decodeProblem(error)}`);
  }
}

/** EIP-7966's wait in milliseconds: a QUANTITY, as geth reads it, or a JSON number. */
const inclusionWaitSchema = {
  anyOf: [uint64Schema, { type: 'integer', minimum: 0 }],
  description: 'the wait for the receipt in milliseconds (a QUANTITY or a number)',
};

export function ethPoolMethods({
  chain,
  pool,
  acknowledgement,
  bus,
}: NodeServices): MethodDefinition[] {
  const sendRaw = async (raw: string) => {
    const { tx, bytes } = decodeRawTransaction(chain, raw);
    const { hashHex } = await pool.add(tx, bytes);
    await acknowledgement.settled(hashHex);
    return hashHex;
  };
  const receiptSources = { bus, pool, receipt: (hash: Uint8Array) => chain.getReceipt(hash) };
  return [
    defineMethod<[string]>({
      name: 'eth_sendRawTransaction',
      params: [{ name: 'signedTransaction', schema: dataSchema }],
      // Decoding and pool.add's place in the admission queue come before the first await.
      overlapsInBatch: true,
      handler: ([raw]) => sendRaw(raw),
    }),
    defineMethod<[string, (string | number)?]>({
      name: 'eth_sendRawTransactionSync',
      params: [
        { name: 'signedTransaction', schema: dataSchema },
        { name: 'timeout', schema: inclusionWaitSchema, optional: true },
      ],
      handler: async ([raw, timeout]) =>
        formatReceipt(
          await sendAndAwaitReceipt(receiptSources, () => sendRaw(raw), inclusionWaitMs(timeout)),
        ),
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
        const block = committed && chain.getBlockOutline(committed.blockNumber);
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
    defineMethod<[string]>({
      name: 'eth_getRawTransactionByHash',
      params: [{ name: 'transactionHash', schema: hash32Schema }],
      handler: ([hash]) => {
        const tx =
          chain.getTransaction(hexToBytes(hash as PrefixedHexString))?.tx ??
          pool.getByHash(hash.toLowerCase())?.tx;
        return tx === undefined ? null : hex(tx.serialize());
      },
    }),
  ];
}
