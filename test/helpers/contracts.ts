/** The compiled Solidity fixtures of test/fixtures/contracts (see scripts/compile-contracts.js). */
import { readFileSync } from 'node:fs';
import { ContractFactory } from 'ethers';
import type { BaseContract, Contract, InterfaceAbi, Wallet } from 'ethers';
import type { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { sendAndWait, signDynamicFeeTx, type RawReceipt } from './dev-chain.js';
import { waitFor } from './processes.js';

/** A compiled contract as scripts/compile-contracts.js writes it. */
export interface ContractArtifact {
  abi: InterfaceAbi;
  /** Creation code, 0x-prefixed. */
  bytecode: string;
  /** Runtime code the chain stores once the contract is deployed, 0x-prefixed. */
  deployedBytecode: string;
}

/** Names of the fixture contracts. */
export type FixtureContractName = 'Token' | 'Fixture' | 'Prober' | 'Callee' | 'Child';

/** Reads `test/fixtures/contracts/<name>.json`. */
export function loadContract(name: FixtureContractName): ContractArtifact {
  const url = new URL(`../fixtures/contracts/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as ContractArtifact;
}

/**
 * Deploys fixture `name` from `deployer` (a wallet connected to the node) with ethers, and waits
 * until its creation is mined.
 */
export async function deployFixture(
  name: FixtureContractName,
  deployer: Wallet,
  ...args: unknown[]
): Promise<Contract> {
  const artifact = loadContract(name);
  const factory = new ContractFactory(artifact.abi, artifact.bytecode, deployer);
  const contract: BaseContract = await factory.deploy(...args);
  const hash = contract.deploymentTransaction()!.hash;
  const provider = deployer.provider!;
  await waitFor(async () => (await provider.getTransactionReceipt(hash)) !== null, 20_000, hash);
  return contract as Contract;
}

/**
 * Deploys fixture `name` from `wallet` (offline) as its transaction `nonce`, through
 * eth_sendRawTransaction, and answers the creation's receipt once mined.
 */
export async function deployFixtureRaw(
  rpc: HttpRpcClient,
  name: FixtureContractName,
  wallet: Wallet,
  nonce: number,
): Promise<RawReceipt> {
  const data = loadContract(name).bytecode;
  return sendAndWait(rpc, await signDynamicFeeTx(wallet, { nonce, data, gasLimit: 1_000_000n }));
}
