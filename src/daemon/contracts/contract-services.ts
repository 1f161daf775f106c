/**
 * Builds what the contract and identity routes use from the node's parts: the identity's
 * transactions, the identity registry (in the genesis, or deployed on first use), the registry
 * of named contracts and the calls into them.
 */
import { join } from 'node:path';
import type { Address } from '@ethereumjs/util';
import type { TransactionSigner } from '../accounts/transaction-signer.js';
import type { Chain } from '../chain/chain.js';
import type { NodeKey } from '../datadir/node-key.js';
import type { EventBus } from '../events/event-bus.js';
import type { IdentityFunding } from '../identity/identity-funding.js';
import { IdentityRegistryDeployment } from '../identity/identity-registry.js';
import { IdentityTransactions } from '../identity/identity-transactions.js';
import { ContractCalls } from './contract-calls.js';
import { ContractRegistry } from './contract-registry.js';

export interface ContractServicesDeps {
  dataDir: string;
  chain: Chain;
  signer: TransactionSigner;
  bus: EventBus;
  identityKey: NodeKey;
  identityFunding: IdentityFunding;
}

export interface ContractServices {
  registry: ContractRegistry;
  calls: ContractCalls;
  codeAtHead(address: Address): Promise<Uint8Array>;
}

export function contractServices(deps: ContractServicesDeps): ContractServices {
  const { chain } = deps;
  const codeAtHead = (address: Address): Promise<Uint8Array> =>
    chain.getCode(address, chain.head().number);
  const transactions = new IdentityTransactions({
    identity: deps.identityKey,
    ensureFunded: () => deps.identityFunding.ensureFunded(),
    estimateGas: (request) => chain.estimateGas(request, chain.head().number),
    sendWithKey: (fields, key) => deps.signer.sendWithKey(fields, key),
    bus: deps.bus,
  });
  const identityRegistry = new IdentityRegistryDeployment({
    recordFile: join(deps.dataDir, 'identity-registry.json'),
    transactions,
    codeAtHead,
  });
  const registry = new ContractRegistry(join(deps.dataDir, 'contracts'), [identityRegistry]);
  const calls = new ContractCalls({
    registry,
    transactions,
    callAtHead: (request) => chain.call(request, chain.head().number),
  });
  return { registry, calls, codeAtHead };
}
