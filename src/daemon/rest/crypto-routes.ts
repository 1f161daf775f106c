/**
 * `POST /crypto/sign`, `/crypto/verify/:owner`, `/crypto/encrypt`, `/crypto/decrypt`: the node
 * signs, and decrypts what was encrypted, with its identity key (the node key of
 * `<datadir>/node_key.json`). Every answer puts its record under `data.signed`, the spec's
 * field name for all four. Shapes: docs/rest.md.
 */
import type { NodeKey } from '../datadir/node-key.js';
import type { SealedContent, SignedContent } from '../../shared/rest-api.js';
import { ENCRYPTION_ALGORITHM, openContent, sealContent } from '../identity/sealed-content.js';
import {
  SIGNATURE_ALGORITHM,
  recoverContentSigner,
  signContent,
} from '../identity/signed-content.js';
import { restRoute, type RestResource } from './resource.js';
import {
  ADDRESS_SCHEMA,
  ANY_OBJECT_SCHEMA,
  HANDLE_SCHEMA,
  HEX_BYTES_SCHEMA,
  dataEnvelope,
} from './schemas.js';

/**
 * Turns the `:owner` of `verify` (an address or an identity handle) into an address (0x, lower
 * case); the identity registry resolves handles (rest/identity-routes.ts).
 */
export type OwnerResolver = (owner: string) => Promise<string>;

export const OWNER_PARAM_SCHEMA = {
  type: 'object',
  required: ['owner'],
  properties: { owner: { anyOf: [ADDRESS_SCHEMA, HANDLE_SCHEMA] } },
} as const;

const SIGNED_CONTENT_SCHEMA = {
  type: 'object',
  required: ['data', 'signer', 'signature', 'algorithm'],
  properties: {
    data: ANY_OBJECT_SCHEMA,
    signer: ADDRESS_SCHEMA,
    signature: { ...HEX_BYTES_SCHEMA, description: '65-byte r ‖ s ‖ v, 0x-hex.' },
    algorithm: { type: 'string', enum: [SIGNATURE_ALGORITHM] },
  },
} as const;

const SEALED_CONTENT_SCHEMA = {
  type: 'object',
  required: ['ciphertext', 'publicKey', 'algorithm'],
  properties: {
    ciphertext: { ...HEX_BYTES_SCHEMA, description: 'eciesjs format, 0x-hex.' },
    publicKey: { ...HEX_BYTES_SCHEMA, description: 'The node key, compressed, 0x-hex.' },
    algorithm: { type: 'string', enum: [ENCRYPTION_ALGORITHM] },
  },
} as const;

const DATA_BODY_SCHEMA = {
  type: 'object',
  required: ['data'],
  properties: { data: ANY_OBJECT_SCHEMA },
} as const;

/** A signed record as `verify` takes it: `signer`, when given, must be the recovered one. */
type ClaimedSignedContent = Omit<SignedContent, 'signer'> & { signer?: string };

export interface CryptoDeps {
  identityKey: NodeKey;
  resolveOwner: OwnerResolver;
}

export function cryptoResource({ identityKey, resolveOwner }: CryptoDeps): RestResource {
  return {
    name: 'crypto',
    description: "Sign, verify, encrypt and decrypt with the node's identity key.",
    routes: [
      restRoute<{ data: object }>({
        method: 'POST',
        path: '/crypto/sign',
        operationId: 'sign',
        summary: 'Sign data: EIP-191 personal signature over its RFC 8785 canonical JSON.',
        body: DATA_BODY_SCHEMA,
        response: dataEnvelope({
          type: 'object',
          required: ['signed'],
          properties: { signed: SIGNED_CONTENT_SCHEMA },
        }),
        handle: ({ body }): { data: { signed: SignedContent } } => ({
          data: { signed: signContent(body.data, identityKey) },
        }),
      }),
      restRoute<{ data: { signed: ClaimedSignedContent } }, { owner: string }>({
        method: 'POST',
        path: '/crypto/verify/:owner',
        operationId: 'verify',
        summary: 'Whether data.signed was signed by owner (an address or an identity handle).',
        params: OWNER_PARAM_SCHEMA,
        body: {
          type: 'object',
          required: ['data'],
          properties: {
            data: {
              type: 'object',
              required: ['signed'],
              properties: {
                signed: {
                  ...SIGNED_CONTENT_SCHEMA,
                  required: ['data', 'signature', 'algorithm'],
                },
              },
            },
          },
        },
        response: dataEnvelope({
          type: 'object',
          required: ['verified'],
          properties: { verified: { type: 'boolean' } },
        }),
        handle: async ({ body, params }) => {
          const owner = await resolveOwner(params.owner);
          const { signed } = body.data;
          const signer = recoverContentSigner(signed);
          const claimed = signed.signer === undefined || signed.signer.toLowerCase() === signer;
          return { data: { verified: claimed && signer === owner } };
        },
      }),
      restRoute<{ data: object }>({
        method: 'POST',
        path: '/crypto/encrypt',
        operationId: 'encrypt',
        expensive: true,
        summary: "Encrypt data to the node's key (ECIES, eciesjs format).",
        body: DATA_BODY_SCHEMA,
        response: dataEnvelope({
          type: 'object',
          required: ['signed'],
          properties: { signed: SEALED_CONTENT_SCHEMA },
        }),
        handle: async ({ body }): Promise<{ data: { signed: SealedContent } }> => ({
          data: { signed: await sealContent(body.data, identityKey.publicKey) },
        }),
      }),
      restRoute<{ data: { ciphertext: string } }>({
        method: 'POST',
        path: '/crypto/decrypt',
        operationId: 'decrypt',
        expensive: true,
        summary: 'Decrypt data.ciphertext made for the node key; answers the JSON value.',
        body: {
          type: 'object',
          required: ['data'],
          properties: {
            data: {
              type: 'object',
              required: ['ciphertext'],
              properties: {
                ciphertext: SEALED_CONTENT_SCHEMA.properties.ciphertext,
                publicKey: SEALED_CONTENT_SCHEMA.properties.publicKey,
                algorithm: SEALED_CONTENT_SCHEMA.properties.algorithm,
              },
            },
          },
        },
        response: dataEnvelope({
          type: 'object',
          required: ['signed'],
          properties: { signed: {} },
        }),
        handle: async ({ body }) => ({
          data: { signed: await openContent(body.data.ciphertext, identityKey.privateKey) },
        }),
      }),
    ],
  };
}
