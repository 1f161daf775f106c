/**
 * The identity registry (contracts/IdentityRegistry.sol): handles for addresses. The embedded
 * dev genesis holds it at IDENTITY_REGISTRY_ADDRESS (`registry-predeploy.ts`). A chain without
 * code there (a dev data directory of a release before the registry was in its genesis, or a
 * custom genesis that does not allocate it) gets it from the node: deployed from the identity
 * key, on the dev chain at start and elsewhere the first time anything needs it, and recorded
 * in `<datadir>/identity-registry.json` (`{address, transactionHash, blockNumber}`). A recorded
 * address without code (the chain was reset) is deployed again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Address, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { getAddress } from 'ethers';
import { writeFileAtomic } from '../../shared/atomic-write.js';
import { ServerError } from '../../shared/errors.js';
import { SerialQueue } from '../txpool/serial-queue.js';
import type { AbiEntry } from '../contracts/contract-abi.js';
import type { BuiltInContract } from '../contracts/contract-registry.js';
import type { IdentityTransactions } from './identity-transactions.js';
import artifact from './identity-registry.json' with { type: 'json' };
import { IDENTITY_REGISTRY_ADDRESS } from './registry-predeploy.js';

export const IDENTITY_REGISTRY_NAME = 'IdentityRegistry';
export const IDENTITY_REGISTRY_ABI = artifact.abi as AbiEntry[];

/** What `<datadir>/identity-registry.json` holds. */
interface DeploymentRecord {
  address: string;
  transactionHash: string;
  blockNumber: string;
}

export interface IdentityRegistryDeps {
  /** `<datadir>/identity-registry.json`. */
  recordFile: string;
  transactions: IdentityTransactions;
  codeAtHead(address: Address): Promise<Uint8Array>;
}

export class IdentityRegistryDeployment implements BuiltInContract {
  readonly name = IDENTITY_REGISTRY_NAME;
  readonly abi = IDENTITY_REGISTRY_ABI;
  private readonly serial = new SerialQueue();

  constructor(private readonly deps: IdentityRegistryDeps) {}

  /** The registry's address (checksummed), deploying it first when this chain has none. */
  address(): Promise<string> {
    return this.serial.run(async () => {
      if ((await this.deps.codeAtHead(toAddress(IDENTITY_REGISTRY_ADDRESS))).length > 0) {
        return IDENTITY_REGISTRY_ADDRESS;
      }
      const recorded = this.recorded();
      if (recorded && (await this.deps.codeAtHead(toAddress(recorded.address))).length > 0) {
        return recorded.address;
      }
      return this.deploy();
    });
  }

  private recorded(): DeploymentRecord | undefined {
    if (!existsSync(this.deps.recordFile)) return undefined;
    return JSON.parse(readFileSync(this.deps.recordFile, 'utf8')) as DeploymentRecord;
  }

  private async deploy(): Promise<string> {
    const receipt = await this.deps.transactions.send({
      data: hexToBytes(artifact.bytecode as PrefixedHexString),
      value: 0n,
    });
    if (!receipt.contractAddress) {
      throw new ServerError('identity registry deployment gave no contract address');
    }
    const record: DeploymentRecord = {
      address: getAddress(receipt.contractAddress.toString()),
      transactionHash: `0x${Buffer.from(receipt.transactionHash).toString('hex')}`,
      blockNumber: receipt.blockNumber.toString(),
    };
    writeFileAtomic(this.deps.recordFile, `${JSON.stringify(record, null, 2)}\n`);
    return record.address;
  }
}

function toAddress(hex: string): Address {
  return new Address(hexToBytes(hex as PrefixedHexString));
}
