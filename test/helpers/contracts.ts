/** The compiled Solidity fixtures of test/fixtures/contracts (see scripts/compile-contracts.js). */
import { readFileSync } from 'node:fs';
import type { InterfaceAbi } from 'ethers';

/** A compiled contract as scripts/compile-contracts.js writes it. */
export interface ContractArtifact {
  abi: InterfaceAbi;
  /** Creation code, 0x-prefixed. */
  bytecode: string;
  /** Runtime code the chain stores once the contract is deployed, 0x-prefixed. */
  deployedBytecode: string;
}

/** Names of the fixture contracts. */
export type FixtureContractName = 'Token' | 'Fixture';

/** Reads `test/fixtures/contracts/<name>.json`. */
export function loadContract(name: FixtureContractName): ContractArtifact {
  const url = new URL(`../fixtures/contracts/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as ContractArtifact;
}
