/**
 * The eth namespace: chain facts, fees and the PoW-only methods, composed with the block and
 * state readers (together the methods that read only the committed chain), plus the pool's
 * methods and the coinbase. Other modules (accounts, logs, filters, subscriptions) add
 * their methods through `extraMethods`.
 */
import { UnsupportedError } from '../../shared/errors.js';
import { defineMethod, type MethodDefinition, type NamespaceModule } from '../rpc/registry.js';
import { requireBlockNumber, type BlockSelector } from './block-selector.js';
import { ethBlockMethods } from './eth-blocks.js';
import { ethConfigMethods } from './eth-config.js';
import { ethPoolMethods } from './eth-pool.js';
import { ethSimulateMethods } from './eth-simulate.js';
import { ethStateMethods } from './eth-state.js';
import type { FeeOracle } from './fee-oracle.js';
import { quantity } from './formatters.js';
import { blockNumberOrTagSchema, hash32Schema, uint64Schema } from './hex-schemas.js';
import type { ChainView, NodeServices } from './services.js';

/** The eth wire protocol version a geth of the merge era reports (eth/65 = 0x41 in Ethermint). */
const PROTOCOL_VERSION = '0x41';
function chainInfoMethods({ chain }: ChainView, fees: FeeOracle): MethodDefinition[] {
  return [
    defineMethod<[]>({ name: 'eth_chainId', params: [], handler: () => quantity(chain.chainId) }),
    defineMethod<[]>({ name: 'eth_protocolVersion', params: [], handler: () => PROTOCOL_VERSION }),
    defineMethod<[]>({ name: 'eth_syncing', params: [], handler: () => false }),
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
    defineMethod<[]>({
      name: 'eth_baseFee',
      params: [],
      // The next block's base fee, as the pending block's header carries it.
      handler: () => quantity(chain.nextBaseFee()),
    }),
    defineMethod<[string, BlockSelector, number[]?]>({
      name: 'eth_feeHistory',
      params: [
        {
          name: 'blockCount',
          schema: {
            anyOf: [
              uint64Schema,
              { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            ],
            description: 'a block count (hex uint64 QUANTITY or non-negative integer)',
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
  ];
}

/** Methods that only make sense with proof of work, answered as decisions §5 settles. */
function proofOfWorkMethods(): MethodDefinition[] {
  const blockHash = { name: 'blockHash', schema: hash32Schema };
  const blockNumber = { name: 'block', schema: blockNumberOrTagSchema };
  const index = { name: 'index', schema: uint64Schema };
  return [
    defineMethod<[]>({ name: 'eth_mining', params: [], handler: () => false }),
    defineMethod<[]>({ name: 'eth_hashrate', params: [], handler: () => '0x0' }),
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

/** The eth methods that read only the committed chain. */
function ethChainMethods(view: ChainView, fees: FeeOracle): MethodDefinition[] {
  return [
    ...chainInfoMethods(view, fees),
    ...ethConfigMethods(view),
    ...ethBlockMethods(view),
    ...ethStateMethods(view),
    ...ethSimulateMethods(view),
    ...proofOfWorkMethods(),
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
      ...ethChainMethods(services, fees),
      defineMethod<[]>({
        name: 'eth_coinbase',
        params: [],
        handler: () => services.chain.coinbase.toString(),
      }),
      ...ethPoolMethods(services),
      ...extraMethods,
    ],
  };
}
