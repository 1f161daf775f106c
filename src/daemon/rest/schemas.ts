/** JSON schemas several REST resources share. */
import { HANDLE_PATTERN } from '../../shared/identity-handle.js';

/** A 20-byte address, 0x and 40 hex digits in either case. */
export const ADDRESS_SCHEMA = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'An address: 0x and 40 hex digits.',
} as const;

/** 0x-prefixed hex of whole bytes. */
export const HEX_BYTES_SCHEMA = {
  type: 'string',
  pattern: '^0x([0-9a-fA-F]{2})*$',
} as const;

/** Any JSON object, passed through as given. */
export const ANY_OBJECT_SCHEMA = { type: 'object', additionalProperties: true } as const;

/** `{data: <schema>}`, the envelope of every success body. */
export function dataEnvelope(data: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', required: ['data'], properties: { data } };
}

/** An identity handle of the identity registry. */
export const HANDLE_SCHEMA = {
  type: 'string',
  pattern: HANDLE_PATTERN,
  description: 'An identity handle: 3 to 32 characters of a-z 0-9 - _, not starting with 0x.',
} as const;
