/** JSON schemas several REST resources share. */

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
