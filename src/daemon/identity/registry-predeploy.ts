/**
 * Where the identity registry lives from genesis on (decisions §8): the embedded dev chain
 * holds its runtime code at {@link IDENTITY_REGISTRY_ADDRESS} in block 0. A data directory made
 * before the registry was part of the genesis keeps its genesis and gets the registry deployed
 * by the node instead (`identity-registry.ts`).
 */
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { GenesisAccount } from '../../shared/genesis-file.js';
import artifact from './identity-registry.json' with { type: 'json' };

/** Fixed address of the registry in the embedded dev genesis (checksummed). */
export const IDENTITY_REGISTRY_ADDRESS = '0x0000000000000000000000000000000000001D00';

/** The registry's genesis account: its runtime code, nonce 1 as for any created contract. */
export function identityRegistryGenesisAccount(): GenesisAccount {
  return {
    balance: 0n,
    nonce: 1n,
    code: hexToBytes(artifact.deployedBytecode as PrefixedHexString),
  };
}
