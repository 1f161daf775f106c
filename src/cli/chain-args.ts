/**
 * Command-line values of the chain commands (block selectors, transaction hashes, addresses),
 * checked before any call reaches the node. A bad value is a usage error (exit 2) whose
 * message names the value and the expected form.
 */
import { Args, Errors, Flags } from '@oclif/core';
import { checksumAddress, hasValidChecksum, isAddress } from '../shared/address.js';
import type { BlockSelector, BlockTag, Hex } from '../client/eth-client.js';

const BLOCK_TAGS: readonly BlockTag[] = ['earliest', 'latest', 'pending', 'safe', 'finalized'];
const HASH = /^0x[0-9a-fA-F]{64}$/;
/** Block numbers are uint64 on the wire, so at most 16 hex digits. */
const HEX_NUMBER = /^0x[0-9a-fA-F]{1,16}$/;
const DECIMAL_NUMBER = /^\d{1,20}$/;

function usage(message: string): Errors.CLIError {
  return new Errors.CLIError(message, { exit: 2 });
}

/** A decimal or 0x-hex block number, a tag, or a 32-byte block hash. */
export function parseBlockSelector(text: string): BlockSelector {
  if ((BLOCK_TAGS as readonly string[]).includes(text)) return text as BlockTag;
  if (HASH.test(text)) return text.toLowerCase() as Hex;
  if (HEX_NUMBER.test(text) || DECIMAL_NUMBER.test(text)) return BigInt(text);
  throw usage(
    `invalid block "${text}": expected a block number (decimal or 0x-hex), a tag (${BLOCK_TAGS.join(', ')}) or a 32-byte block hash`,
  );
}

/** A 32-byte transaction hash, returned in lower case. */
export function parseTransactionHash(text: string): Hex {
  if (!HASH.test(text))
    throw usage(`invalid transaction hash "${text}": expected 0x followed by 64 hex digits`);
  return text.toLowerCase() as Hex;
}

/**
 * A 20-byte address, returned with its EIP-55 checksum. Mixed-case input must carry a valid
 * checksum, since a typo in such an address is otherwise undetectable.
 */
export function parseAddress(text: string): Hex {
  if (!isAddress(text))
    throw usage(`invalid address "${text}": expected 0x followed by 40 hex digits`);
  if (!hasValidChecksum(text))
    throw usage(`invalid address "${text}": the mixed-case checksum (EIP-55) does not match`);
  return checksumAddress(text);
}

/** A block argument; commands give it `default: 'latest'` where it is optional. */
export const blockArg = Args.custom<BlockSelector>({
  description:
    'Block number (decimal or 0x-hex), tag (earliest, latest, pending, safe, finalized) or block hash.',
  parse: async (input) => parseBlockSelector(input),
});

/** The `--block` flag of state queries, `latest` when omitted. */
export const blockFlag = Flags.custom<BlockSelector>({
  description:
    'Block to read the state at: number (decimal or 0x-hex), tag (earliest, latest, pending, safe, finalized) or block hash.',
  default: 'latest',
  parse: async (input) => parseBlockSelector(input),
});

/** A transaction hash argument. */
export const transactionHashArg = Args.custom<Hex>({
  description: 'Transaction hash (0x followed by 64 hex digits).',
  parse: async (input) => parseTransactionHash(input),
});

/** An account address argument, given back checksummed. */
export const addressArg = Args.custom<Hex>({
  description: 'Account address (0x followed by 40 hex digits; mixed case must match EIP-55).',
  parse: async (input) => parseAddress(input),
});
