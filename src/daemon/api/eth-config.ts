/**
 * What the node is and what it keeps, for clients and RPC routers: eth_config (EIP-7910, the
 * chain's fork configuration, `chain/fork-config.ts`) and eth_capabilities (execution-apis: the
 * oldest block of each kind of data the node serves). This node is an archive that deletes
 * nothing, so every kind of data reaches back to the genesis and none names a delete strategy.
 */
import { forkConfig, type ForkConfig } from '../chain/fork-config.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { hex, quantity } from './formatters.js';
import type { ChainView } from './services.js';

/** The kinds of data eth_capabilities reports on, in the order execution-apis lists them. */
const RESOURCES = ['state', 'tx', 'logs', 'receipts', 'blocks', 'stateproofs'] as const;

function forkJson(fork: ForkConfig): Record<string, unknown> {
  return {
    activationTime: fork.activationTime,
    blobSchedule: fork.blobSchedule,
    chainId: quantity(fork.chainId),
    forkId: hex(fork.forkId),
    precompiles: fork.precompiles,
    systemContracts: fork.systemContracts,
  };
}

export function ethConfigMethods({ chain }: ChainView): MethodDefinition[] {
  return [
    defineMethod<[]>({
      name: 'eth_config',
      params: [],
      // One fork from the genesis on: none before it, none scheduled after it.
      handler: () => ({
        current: forkJson(forkConfig(chain.common, chain.genesisHash)),
        next: null,
        last: null,
      }),
    }),
    defineMethod<[]>({
      name: 'eth_capabilities',
      params: [],
      handler: () => {
        const head = chain.head();
        const kept = { disabled: false, oldestBlock: quantity(0n) };
        return {
          head: { number: quantity(head.number), hash: head.hashHex },
          ...Object.fromEntries(RESOURCES.map((resource) => [resource, kept])),
        };
      },
    }),
  ];
}
