/**
 * geth's state overrides of `debug_traceCall` (and the third parameter of `eth_call` and
 * `eth_estimateGas`): per address a `balance`, `nonce`, `code`, and either `state` (the whole
 * storage) or `stateDiff` (some slots); `movePrecompileToAddress` moves a precompile
 * (`precompile-overrides.ts`).
 */
import type { StateManagerInterface } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import {
  Account,
  Address,
  hexToBytes,
  setLengthLeft,
  unpadBytes,
  type PrefixedHexString,
} from '@ethereumjs/util';
import { InvalidInputError } from '../../shared/errors.js';
import { routePrecompiles } from './precompile-overrides.js';

export interface AccountOverride {
  balance?: string;
  nonce?: string;
  code?: string;
  state?: Record<string, string>;
  stateDiff?: Record<string, string>;
  /** Where the precompile at this address answers instead. */
  movePrecompileToAddress?: string;
}

export type StateOverrides = Record<string, AccountOverride>;

/** Refuses what geth refuses beyond the schema. */
export function checkStateOverrides(overrides: StateOverrides): void {
  for (const [address, override] of Object.entries(overrides)) {
    if (override.state !== undefined && override.stateDiff !== undefined) {
      throw new InvalidInputError(`account ${address} has both 'state' and 'stateDiff'`);
    }
  }
}

const bytes = (hex: string) => hexToBytes(hex as PrefixedHexString);

async function putSlots(
  state: StateManagerInterface,
  address: Address,
  slots: Record<string, string>,
): Promise<void> {
  for (const [slot, value] of Object.entries(slots)) {
    await state.putStorage(address, setLengthLeft(bytes(slot), 32), unpadBytes(bytes(value)));
  }
}

async function writeOverrides(
  state: StateManagerInterface,
  overrides: StateOverrides,
): Promise<void> {
  for (const [hex, override] of Object.entries(overrides)) {
    const address = new Address(bytes(hex));
    const account = (await state.getAccount(address)) ?? new Account();
    if (override.balance !== undefined) account.balance = BigInt(override.balance);
    if (override.nonce !== undefined) account.nonce = BigInt(override.nonce);
    await state.putAccount(address, account);
    if (override.code !== undefined) await state.putCode(address, bytes(override.code));
    if (override.state !== undefined) {
      await state.clearStorage(address);
      await putSlots(state, address, override.state);
    }
    if (override.stateDiff !== undefined) await putSlots(state, address, override.stateDiff);
  }
}

/**
 * Writes `overrides` into `vm`'s state (a throw-away state: the call's) and routes its
 * precompiles; answers what undoes the routing, for a VM that serves other calls afterwards.
 */
export async function applyStateOverrides(vm: VM, overrides: StateOverrides): Promise<() => void> {
  const unroute = routePrecompiles(vm.evm as EVM, overrides);
  try {
    await writeOverrides(vm.stateManager, overrides);
  } catch (error) {
    unroute();
    throw error;
  }
  return unroute;
}
