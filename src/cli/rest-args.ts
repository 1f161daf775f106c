/**
 * Command-line values of the REST commands (storage ids, contract names, signers), checked
 * before the request as the chain commands' values are: a bad one is a usage error (exit 2)
 * saying the expected form, not the daemon's schema text.
 */
import { Args, Errors } from '@oclif/core';
import { isHandle } from '../shared/identity-handle.js';
import { CONTRACT_NAME_PATTERN } from '../shared/rest-api.js';
import { CONTENT_ID_PATTERN } from '../shared/storage-api.js';
import { parseAddress } from './chain-args.js';

const CONTENT_ID = new RegExp(CONTENT_ID_PATTERN);
const CONTRACT_NAME = new RegExp(CONTRACT_NAME_PATTERN);

function usage(message: string): Errors.CLIError {
  return new Errors.CLIError(message, { exit: 2 });
}

function parseContentId(what: 'file' | 'chunk', input: string): string {
  if (!CONTENT_ID.test(input)) {
    throw usage(`invalid ${what} id "${input}": expected 64 lower-case hex digits`);
  }
  return input;
}

/** A file id argument. */
export const fileIdArg = Args.custom<string>({
  description: 'File id (64 hex digits).',
  parse: async (input) => parseContentId('file', input),
});

/** A chunk id argument. */
export const chunkIdArg = Args.custom<string>({
  description: 'Chunk id (64 hex digits, the SHA-256 of its bytes).',
  parse: async (input) => parseContentId('chunk', input),
});

function parseContractName(input: string): string {
  if (!CONTRACT_NAME.test(input)) {
    throw usage(
      `invalid contract name "${input}": a letter, then up to 63 letters, digits, _ . - (not an address)`,
    );
  }
  return input;
}

/** The name to register a contract under. */
export const contractNameArg = Args.custom<string>({
  description: 'A letter, then up to 63 letters, digits, _ . -',
  parse: async (input) => parseContractName(input),
});

/** A registered contract: its name, or its address (given back checksummed). */
export const contractArg = Args.custom<string>({
  description: 'Name or address of the contract.',
  parse: async (input) => (input.startsWith('0x') ? parseAddress(input) : parseContractName(input)),
});

/** An owner: an address (given back checksummed) or an identity handle. */
export const ownerArg = Args.custom<string>({
  description: 'Address or identity handle.',
  parse: async (input) => {
    if (input.startsWith('0x')) return parseAddress(input);
    if (!isHandle(input)) {
      throw usage(
        `invalid owner "${input}": expected an address (0x followed by 40 hex digits) or an identity handle (3 to 32 characters of a-z 0-9 - _)`,
      );
    }
    return input;
  },
});
