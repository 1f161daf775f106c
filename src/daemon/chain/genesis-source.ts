/**
 * Which genesis a data directory runs: the custom one `daemon init --genesis` stored there, or
 * the embedded dev chain (with `--chain-id` applied). For the dev chain, `earlier` holds the
 * geneses earlier releases made for the same options, which a data directory may still hold.
 */
import { readFileSync } from 'node:fs';
import type { DataDirLayout } from '../../shared/datadir-layout.js';
import { InvalidInputError } from '../../shared/errors.js';
import { readGenesisFile, type GenesisConfig } from '../../shared/genesis-file.js';
import { devGenesis } from './genesis.js';

export const DEFAULT_CHAIN_ID = 9000n;

export interface GenesisSource {
  genesis: GenesisConfig;
  /** The data directory holds a genesis of its own (`daemon init --genesis`). */
  custom: boolean;
  /** Geneses of earlier releases a store made with the same options holds instead. */
  earlier: GenesisConfig[];
}

export function loadGenesis(layout: DataDirLayout, chainId: number | undefined): GenesisSource {
  try {
    readFileSync(layout.genesisFile);
  } catch {
    const id = chainId === undefined ? DEFAULT_CHAIN_ID : BigInt(chainId);
    return {
      genesis: devGenesis({ chainId: id }),
      custom: false,
      earlier: [devGenesis({ chainId: id, identityRegistry: false })],
    };
  }
  const genesis = readGenesisFile(layout.genesisFile);
  if (chainId !== undefined && BigInt(chainId) !== genesis.chainId) {
    throw new InvalidInputError(
      `--chain-id ${chainId} contradicts the chain id ${genesis.chainId} of ${layout.genesisFile}; leave --chain-id out`,
    );
  }
  return { genesis, custom: true, earlier: [] };
}
