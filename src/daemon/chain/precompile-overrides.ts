/**
 * What state overrides do to precompiles, as geth applies them: `movePrecompileToAddress` makes
 * a precompile answer at another address, and any override of a precompile's address (moved or
 * given code, balance, nonce or storage) takes the precompile away from it, so code put there
 * runs. Moves accumulate over the blocks of one simulation.
 *
 * The EVM finds a message's precompile through `getPrecompile` alone; the routing is installed
 * there, on the EVM instance, and the map of active precompiles is left as it is, so the
 * addresses warm from a transaction's start stay the fork's own, as in geth.
 */
import type { EVM, PrecompileFunc } from '@ethereumjs/evm';
import {
  Address,
  bytesToUnprefixedHex,
  hexToBytes,
  type PrefixedHexString,
} from '@ethereumjs/util';
import { TransactionRejectedError } from '../../shared/errors.js';
import { checksumAddress } from './checksum-address.js';
import type { StateOverrides } from './state-overrides.js';

/** Precompiles by unprefixed lower-case address. */
type Routing = Map<string, PrecompileFunc>;

/** The routing installed on an EVM by the overrides applied so far. */
const installed = new WeakMap<EVM, Routing>();

const keyOf = (hex: string): string => hex.slice(2).toLowerCase();
const shown = (key: string): string =>
  checksumAddress(new Address(hexToBytes(`0x${key}` as PrefixedHexString)));

function install(evm: EVM, routing: Routing | undefined): void {
  if (routing === undefined) {
    installed.delete(evm);
    // The prototype's method answers again.
    delete (evm as { getPrecompile?: unknown }).getPrecompile;
    return;
  }
  installed.set(evm, routing);
  evm.getPrecompile = (address: Address | string) =>
    routing.get(typeof address === 'string' ? keyOf(address) : bytesToUnprefixedHex(address.bytes));
}

/**
 * Routes `evm`'s precompiles as `overrides` say; answers what undoes it (for a VM that serves
 * other calls afterwards). Checks everything before changing anything.
 *
 * @throws TransactionRejectedError (the call cannot run: -32000, as geth answers) in geth's
 *   words, for a move of an address that holds no precompile, a move to an address the overrides
 *   also name, or an override of an address a precompile was moved to.
 */
export function routePrecompiles(evm: EVM, overrides: StateOverrides): () => void {
  const before = installed.get(evm);
  const current: Routing = before ?? evm.precompiles;
  const entries = Object.entries(overrides)
    .map(([hex, override]) => [keyOf(hex), override] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const moves = entries.some(([, override]) => override.movePrecompileToAddress !== undefined);
  if (!moves && !entries.some(([key]) => current.has(key))) return () => undefined;
  const overridden = new Set(entries.map(([key]) => key));
  const routing: Routing = new Map(current);
  const movedTo = new Set<string>();
  for (const [key, override] of entries) {
    if (movedTo.has(key)) {
      throw new TransactionRejectedError(
        `account ${shown(key)} has already been overridden by a precompile`,
      );
    }
    const precompile = routing.get(key);
    const target = override.movePrecompileToAddress;
    if (target !== undefined) {
      if (precompile === undefined) {
        throw new TransactionRejectedError(`account ${shown(key)} is not a precompile`);
      }
      const targetKey = keyOf(target);
      if (overridden.has(targetKey)) {
        throw new TransactionRejectedError(`account ${shown(targetKey)} is already overridden`);
      }
      routing.set(targetKey, precompile);
      movedTo.add(targetKey);
    }
    if (precompile !== undefined) routing.delete(key);
  }
  install(evm, routing);
  return () => install(evm, before);
}
