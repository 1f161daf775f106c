/**
 * The eth namespace: chain facts, fees, raw transaction submission and the PoW-only methods,
 * composed with the block and state readers. Other modules (accounts, logs, filters,
 * subscriptions) add their methods through `extraMethods`.
 */
import { createTxFromRLP } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { InvalidInputError, TransactionRejectedError, UnsupportedError } from '../errors.js';
import { defineMethod, type MethodDefinition, type NamespaceModule } from '../rpc/registry.js';
import { requireBlockNumber, type BlockSelector } from './block-selector.js';
import { ethBlockMethods } from './eth-blocks.js';
import { ethStateMethods } from './eth-state.js';
import type { FeeOracle } from './fee-oracle.js';
import { hex, quantity } from './formatters.js';
import { blockNumberOrTagSchema, dataSchema, hash32Schema, quantitySchema } from './hex-schemas.js';
import type { NodeServices } from './services.js';

/** The eth wire protocol version a geth of the merge era reports (eth/65 = 0x41 in Ethermint). */
const PROTOCOL_VERSION = '0x41';
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

function decodeRawTransaction(services: NodeServices, raw: string) {
  const bytes = hexToBytes(raw as PrefixedHexString);
  if (bytes.length === 0) throw new InvalidInputError('invalid raw transaction: empty');
  if (bytes[0] === BLOB_TX_TYPE) {
    throw new TransactionRejectedError('blob transactions (type 3) are not supported by this node');
  }
  const chainId = signedChainId(bytes);
  if (chainId !== undefined && chainId !== services.chain.chainId) {
    throw new TransactionRejectedError(
      `invalid chain id for signer: have ${chainId} want ${services.chain.chainId}`,
    );
  }
  try {
    return createTxFromRLP(bytes, { common: services.chain.common });
  } catch (error) {
    throw new InvalidInputError(
      `invalid raw transaction: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

function chainInfoMethods(services: NodeServices, fees: FeeOracle): MethodDefinition[] {
  const { chain } = services;
  return [
    defineMethod<[]>({ name: 'eth_chainId', params: [], handler: () => quantity(chain.chainId) }),
    defineMethod<[]>({ name: 'eth_protocolVersion', params: [], handler: () => PROTOCOL_VERSION }),
    defineMethod<[]>({ name: 'eth_syncing', params: [], handler: () => false }),
    defineMethod<[]>({
      name: 'eth_coinbase',
      params: [],
      handler: () => chain.coinbase.toString(),
    }),
    defineMethod<[]>({
      name: 'eth_gasPrice',
      params: [],
      handler: () => quantity(fees.gasPrice()),
    }),
    defineMethod<[]>({
      name: 'eth_maxPriorityFeePerGas',
      params: [],
      handler: () => quantity(fees.suggestedTip()),
    }),
    defineMethod<[]>({ name: 'eth_blobBaseFee', params: [], handler: () => quantity(0n) }),
    defineMethod<[string, BlockSelector, number[]?]>({
      name: 'eth_feeHistory',
      params: [
        {
          name: 'blockCount',
          schema: {
            anyOf: [quantitySchema, { type: 'integer', minimum: 0 }],
            description: 'a block count (hex QUANTITY or integer)',
          },
        },
        { name: 'newestBlock', schema: blockNumberOrTagSchema },
        {
          name: 'rewardPercentiles',
          schema: {
            type: 'array',
            items: { type: 'number' },
            description: 'an array of percentiles (numbers 0-100)',
          },
          optional: true,
        },
      ],
      handler: ([count, newest, percentiles]) => {
        const blockCount = Number(BigInt(count));
        const history = fees.feeHistory(blockCount, requireBlockNumber(chain, newest), percentiles);
        return {
          oldestBlock: quantity(history.oldestBlock),
          baseFeePerGas: history.baseFeePerGas.map(quantity),
          gasUsedRatio: history.gasUsedRatio,
          baseFeePerBlobGas: history.baseFeePerBlobGas.map(quantity),
          blobGasUsedRatio: history.blobGasUsedRatio,
          ...(history.reward ? { reward: history.reward.map((row) => row.map(quantity)) } : {}),
        };
      },
    }),
    defineMethod<[string]>({
      name: 'eth_sendRawTransaction',
      params: [{ name: 'signedTransaction', schema: dataSchema }],
      handler: async ([raw]) =>
        hex((await services.pool.add(decodeRawTransaction(services, raw))).hash),
    }),
  ];
}

/** Methods that only make sense with proof of work, answered as decisions §5 settles. */
function proofOfWorkMethods(): MethodDefinition[] {
  const blockHash = { name: 'blockHash', schema: hash32Schema };
  const blockNumber = { name: 'block', schema: blockNumberOrTagSchema };
  const index = { name: 'index', schema: quantitySchema };
  return [
    defineMethod<[]>({ name: 'eth_mining', params: [], handler: () => false }),
    defineMethod<[]>({ name: 'eth_hashrate', params: [], handler: () => '0x0' }),
    defineMethod<[string]>({
      name: 'eth_getUncleCountByBlockHash',
      params: [blockHash],
      handler: () => '0x0',
    }),
    defineMethod<[string]>({
      name: 'eth_getUncleCountByBlockNumber',
      params: [blockNumber],
      handler: () => '0x0',
    }),
    defineMethod<[string, string]>({
      name: 'eth_getUncleByBlockHashAndIndex',
      params: [blockHash, index],
      handler: () => null,
    }),
    defineMethod<[string, string]>({
      name: 'eth_getUncleByBlockNumberAndIndex',
      params: [blockNumber, index],
      handler: () => null,
    }),
    defineMethod<[]>({
      name: 'eth_getWork',
      params: [],
      handler: () => {
        throw new UnsupportedError(
          'eth_getWork is not available: this chain uses BFT consensus, there is no proof of work',
        );
      },
    }),
    defineMethod<[string, string, string]>({
      name: 'eth_submitWork',
      params: [
        {
          name: 'nonce',
          schema: {
            type: 'string',
            pattern: '^0x[0-9a-fA-F]{16}$',
            description: 'an 8-byte nonce',
          },
        },
        { name: 'powHash', schema: hash32Schema },
        { name: 'mixDigest', schema: hash32Schema },
      ],
      handler: () => false,
    }),
  ];
}

export function ethNamespace(
  services: NodeServices,
  fees: FeeOracle,
  extraMethods: readonly MethodDefinition[] = [],
): NamespaceModule {
  return {
    namespace: 'eth',
    access: 'public',
    methods: [
      ...chainInfoMethods(services, fees),
      ...ethBlockMethods(services),
      ...ethStateMethods(services),
      ...proofOfWorkMethods(),
      ...extraMethods,
    ],
  };
}
