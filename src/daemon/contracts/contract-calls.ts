/**
 * Calls and transactions of named contracts by ABI: `contracts/call` runs an `eth_call` on the
 * head state from the identity address and decodes the results; `contracts/send` sends a
 * transaction signed by the identity key and answers once it is mined.
 */
import { Address, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { FunctionFragment } from 'ethers';
import type { SentTransaction } from '../../shared/rest-api.js';
import type { CallRequest, CallResult } from '../chain/call.js';
import {
  ExecutionRevertedError,
  InvalidInputError,
  TransactionRejectedError,
} from '../../shared/errors.js';
import type { IdentityTransactions } from '../identity/identity-transactions.js';
import {
  decodeResults,
  describeCustomError,
  encodeCall,
  resolveMethod,
  type AbiEntry,
} from './contract-abi.js';
import type { ContractRegistry, NamedContract } from './contract-registry.js';

export interface ContractCallsDeps {
  registry: ContractRegistry;
  transactions: IdentityTransactions;
  /** `eth_call` on the head state; reverts throw ExecutionRevertedError. */
  callAtHead(request: CallRequest): Promise<CallResult>;
}

export class ContractCalls {
  constructor(private readonly deps: ContractCallsDeps) {}

  /** The decoded results of `method` of `contract` (a name or an address). */
  async call(contract: string, method: string, params: readonly unknown[]): Promise<unknown[]> {
    const { target, fragment, data, abi } = await this.prepare(contract, method, params);
    const result = await namingCustomErrors(
      abi,
      this.deps.callAtHead({
        from: toAddress(this.deps.transactions.address),
        to: toAddress(target),
        data,
      }),
    );
    if (result.error) {
      throw new TransactionRejectedError(`${fragment.format('sighash')} failed: ${result.error}`);
    }
    try {
      return decodeResults(fragment, result.returnData);
    } catch {
      // The answer does not fit the ABI: the ABI is not this contract's, or nothing is there.
      const outputs = `(${fragment.outputs.map((output) => output.format()).join(',')})`;
      throw new InvalidInputError(
        result.returnData.length === 0
          ? `${fragment.format('sighash')} returned no data, not ${outputs}: is there a contract at ${target}?`
          : `${fragment.format('sighash')} returned ${result.returnData.length} bytes that do not decode as ${outputs}: the ABI does not fit the contract at ${target}`,
      );
    }
  }

  /**
   * Sends a transaction calling `method` with `amountInWei` and resolves once it is mined.
   *
   * @throws InvalidInputError for a view or pure function, or value to a non-payable one;
   *   ExecutionRevertedError when it would revert.
   */
  async send(
    contract: string,
    method: string,
    params: readonly unknown[],
    amountInWei: bigint,
  ): Promise<SentTransaction> {
    const { target, fragment, data, abi } = await this.prepare(contract, method, params);
    if (fragment.constant) {
      throw new InvalidInputError(
        `method: ${fragment.format('sighash')} is ${fragment.stateMutability}; use contracts/call`,
      );
    }
    if (amountInWei > 0n && !fragment.payable) {
      throw new InvalidInputError(
        `amountInWei: ${fragment.format('sighash')} is not payable; send 0`,
      );
    }
    const receipt = await namingCustomErrors(
      abi,
      this.deps.transactions.send({ to: target, data, value: amountInWei }),
    );
    return {
      transactionHash: `0x${Buffer.from(receipt.transactionHash).toString('hex')}`,
      blockNumber: Number(receipt.blockNumber),
      blockHash: `0x${Buffer.from(receipt.blockHash).toString('hex')}`,
      status: receipt.status,
      from: this.deps.transactions.address,
      to: target,
      gasUsed: receipt.gasUsed.toString(),
      value: amountInWei.toString(),
    };
  }

  private async prepare(
    contract: string,
    method: string,
    params: readonly unknown[],
  ): Promise<{
    target: string;
    fragment: FunctionFragment;
    data: Uint8Array;
    abi: readonly AbiEntry[];
  }> {
    const named: NamedContract = await this.deps.registry.get(contract);
    if (named.address === null) {
      throw new InvalidInputError(
        `contract: ${named.name} has no address; register it with POST /contracts`,
      );
    }
    const fragment = resolveMethod(named.abi, method, named.name);
    return {
      target: named.address,
      fragment,
      data: encodeCall(fragment, params),
      abi: named.abi,
    };
  }
}

/**
 * A revert without a reason string whose data is one of the contract's custom errors says
 * which, with its arguments (`execution reverted: Refused("7", "0x…")`), as cast and ethers do.
 */
async function namingCustomErrors<T>(abi: readonly AbiEntry[], work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const bare = error instanceof ExecutionRevertedError && error.message === 'execution reverted';
    if (!bare || typeof error.data !== 'string') throw error;
    const custom = describeCustomError(abi, error.data);
    throw custom === undefined ? error : new ExecutionRevertedError(error.data, custom);
  }
}

/**
 * An amount of wei given as a decimal (or 0x) string or a number.
 *
 * @throws InvalidInputError naming `amountInWei` when it is not a non-negative integer.
 */
export function parseWei(amount: string | number): bigint {
  try {
    if (typeof amount === 'number' && !Number.isSafeInteger(amount)) throw new RangeError();
    const value = BigInt(amount);
    if (value < 0n) throw new RangeError();
    return value;
  } catch {
    throw new InvalidInputError(
      `amountInWei must be a non-negative integer (decimal or 0x string, or a safe number), got ${String(amount)}`,
    );
  }
}

function toAddress(hex: string): Address {
  return new Address(hexToBytes(hex as PrefixedHexString));
}
