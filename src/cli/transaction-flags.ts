/**
 * Flags of the commands that send transactions (`tx send`, `tx cancel`, `tx speed-up`): who
 * signs, fees, gas and nonce, and how long to wait. Amounts take wei (decimal or 0x-hex) or a
 * number with a unit; gas and nonces take decimal or 0x-hex. A bad value is a usage error.
 */
import { Errors, Flags } from '@oclif/core';
import type { Hex } from '../client/eth-client.js';
import { UNIT_DECIMALS, parseUnits } from '../shared/units.js';
import { parseAddress } from './chain-args.js';
import { passwordFileFlag } from './passphrase-input.js';

const AMOUNT = /^(\d+(?:\.\d+)?)\s*(wei|gwei|ether|eth)?$/i;
const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const DECIMAL_QUANTITY = /^\d{1,78}$/;

/** "1.5ether", "2 gwei", "0x3b9aca00" or a plain number of wei. */
export function parseAmount(text: string): bigint {
  const trimmed = text.trim();
  if (HEX_QUANTITY.test(trimmed)) return BigInt(trimmed);
  const match = AMOUNT.exec(trimmed);
  const amount = match && parseUnits(match[1], UNIT_DECIMALS[(match[2] ?? 'wei').toLowerCase()]);
  if (amount !== undefined && amount !== null) return amount;
  throw new Errors.CLIError(
    `invalid amount "${text}": expected wei (decimal or 0x-hex), or a number with a unit (wei, gwei, ether), e.g. 1.5ether`,
    { exit: 2 },
  );
}

/** A whole number in decimal or 0x-hex, at least `min`. */
export function parseQuantity(text: string, name: string, min = 0n): bigint {
  const trimmed = text.trim();
  const value =
    HEX_QUANTITY.test(trimmed) || DECIMAL_QUANTITY.test(trimmed) ? BigInt(trimmed) : undefined;
  if (value === undefined || value < min) {
    throw new Errors.CLIError(
      `invalid --${name} "${text}": expected a whole number (decimal or 0x-hex)${min > 0n ? ` of at least ${min}` : ''}`,
      { exit: 2 },
    );
  }
  return value;
}

export const amountFlag = Flags.custom<bigint>({ parse: async (input) => parseAmount(input) });
export const addressFlag = Flags.custom<Hex>({ parse: async (input) => parseAddress(input) });

/** Who signs: an unlocked node account, or a key file signed here. */
export const signerFlags = {
  from: addressFlag({
    description: 'Unlocked node account to send from.',
    exactlyOne: ['from', 'keystore'],
  }),
  keystore: Flags.string({
    description: 'Key file (v3 JSON) to sign with instead of a node account.',
    exactlyOne: ['from', 'keystore'],
  }),
  'password-file': passwordFileFlag,
};

/** Fees: EIP-1559 (--max-fee, --priority-fee) or a legacy --gas-price. */
export const feeFlags = {
  'max-fee': amountFlag({
    description: 'EIP-1559 fee cap per gas (e.g. 30gwei); default twice the base fee plus the tip.',
    exclusive: ['gas-price'],
  }),
  'priority-fee': amountFlag({
    description: "EIP-1559 tip per gas (e.g. 2gwei); default the node's eth_maxPriorityFeePerGas.",
    exclusive: ['gas-price'],
  }),
  'gas-price': amountFlag({
    description: 'Legacy gas price (e.g. 2gwei) instead of EIP-1559 fees.',
  }),
};

/** How the command waits for the outcome. */
export const waitFlags = {
  async: Flags.boolean({
    description: 'Print the hash once the node accepted the transaction; do not wait for it.',
    default: false,
    exclusive: ['confirmations'],
  }),
  confirmations: Flags.integer({
    description: 'Blocks to wait for, counting the one that holds the transaction.',
    default: 1,
    min: 1,
  }),
  timeout: Flags.integer({
    description: 'Seconds to wait for the receipt (and the confirmations).',
    default: 60,
    min: 1,
  }),
};
