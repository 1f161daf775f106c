import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import type { Common } from '@ethereumjs/common';
import { evmCrypto } from './evm-crypto.js';

/** The hardfork the node executes; the latest one EthereumJS 10 runs reliably. */
export const CHAIN_HARDFORK = Hardfork.Prague;

/**
 * Builds the EthereumJS `Common` for a chain id: mainnet rules at {@link CHAIN_HARDFORK} from
 * block 0, with the node's WebAssembly crypto.
 */
export function createChainCommon(chainId: bigint): Common {
  return createCustomCommon({ chainId: Number(chainId), name: `node-cli-${chainId}` }, Mainnet, {
    hardfork: CHAIN_HARDFORK,
    customCrypto: evmCrypto,
  });
}
