/**
 * `/identities/:identity` and `/owners/:owner/identity`: handles of the identity registry
 * (see identity/identity-registry.ts), read by `eth_call`. Registering and releasing a handle
 * are transactions of the registry (`POST /contracts/send` to `IdentityRegistry`).
 */
import { ZeroAddress } from 'ethers';
import { checksumAddress } from '../../shared/address.js';
import type { ContractCalls } from '../contracts/contract-calls.js';
import { NotFoundError } from '../../shared/errors.js';
import { IDENTITY_REGISTRY_NAME } from '../identity/identity-registry.js';
import type { OwnerResolver } from './crypto-routes.js';
import { restRoute, type RestResource } from './resource.js';
import { ADDRESS_SCHEMA, HANDLE_SCHEMA, dataEnvelope } from './schemas.js';

/** Handles and their owners, from the identity registry. */
export class IdentityLookup {
  constructor(private readonly calls: ContractCalls) {}

  /** The owner of `handle` (checksummed). @throws NotFoundError when nobody holds it. */
  async ownerOf(handle: string): Promise<string> {
    const [owner] = await this.calls.call(IDENTITY_REGISTRY_NAME, 'ownerOf', [handle]);
    if (owner === ZeroAddress) throw new NotFoundError(`identity ${handle} is not registered`);
    return owner as string;
  }

  /** The handle of `owner`. @throws NotFoundError when it has none. */
  async handleOf(owner: string): Promise<string> {
    const [handle] = await this.calls.call(IDENTITY_REGISTRY_NAME, 'handleOf', [owner]);
    if (handle === '') throw new NotFoundError(`owner ${owner} has no identity`);
    return handle as string;
  }

  /** Resolves the `:owner` of `/crypto/verify`: an address as is, a handle to its owner. */
  readonly resolveOwner: OwnerResolver = async (owner) =>
    (owner.startsWith('0x') ? owner : await this.ownerOf(owner)).toLowerCase();
}

export function identityResource(lookup: IdentityLookup): RestResource {
  return {
    name: 'identities',
    description: 'Identity handles of the identity registry and their owners.',
    routes: [
      restRoute<unknown, { identity: string }>({
        method: 'GET',
        path: '/identities/:identity',
        operationId: 'getIdentityOwner',
        summary: 'The owner address of an identity handle.',
        params: { type: 'object', required: ['identity'], properties: { identity: HANDLE_SCHEMA } },
        response: dataEnvelope({
          type: 'object',
          required: ['address'],
          properties: { address: ADDRESS_SCHEMA },
        }),
        errors: [404, 409],
        handle: async ({ params }) => ({
          data: { address: await lookup.ownerOf(params.identity) },
        }),
      }),
      restRoute<unknown, { owner: string }>({
        method: 'GET',
        path: '/owners/:owner/identity',
        operationId: 'getOwnerIdentity',
        summary: 'The identity handle of an owner address.',
        params: { type: 'object', required: ['owner'], properties: { owner: ADDRESS_SCHEMA } },
        response: dataEnvelope({
          type: 'object',
          required: ['identity'],
          properties: { identity: HANDLE_SCHEMA },
        }),
        errors: [404, 409],
        handle: async ({ params }) => ({
          // Any case, as everywhere in this interface: the checksum is not checked.
          data: { identity: await lookup.handleOf(checksumAddress(params.owner)) },
        }),
      }),
    ],
  };
}
