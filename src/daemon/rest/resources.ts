/**
 * The REST resources the node serves, in one list: adding a resource is one module and one
 * line here. The server adds `GET /openapi.json` itself.
 */
import type { TransactionSigner } from '../accounts/transaction-signer.js';
import type { Chain } from '../chain/chain.js';
import { contractServices } from '../contracts/contract-services.js';
import type { NodeKey } from '../datadir/node-key.js';
import type { EventBus } from '../events/event-bus.js';
import type { IdentityFunding } from '../identity/identity-funding.js';
import { contractResource } from './contract-routes.js';
import { cryptoResource } from './crypto-routes.js';
import { IdentityLookup, identityResource } from './identity-routes.js';
import { nodeEventsResource } from './node-events-socket.js';
import type { RestResource } from './resource.js';
import type { RouteTable } from './route-table.js';
import { statusResource } from './status-routes.js';
import { storageResource, type StorageRouteOptions } from './storage-routes.js';

export interface RestNodeParts {
  bus: EventBus;
  chain: Chain;
  /** The data directory: named contracts and the identity registry's record live there. */
  dataDir: string;
  /** Signs the identity's transactions (contracts/send, identity register). */
  signer: TransactionSigner;
  identityKey: NodeKey;
  /**
   * Tops up the identity on the dev chain; resources that send transactions from the identity
   * (contracts/send, identity register) call `ensureFunded()` before they sign.
   */
  identityFunding: IdentityFunding;
  routeTable: RouteTable;
  /** Unsent bytes a WebSocket client may accumulate before it is dropped. */
  wsMaxBacklogBytes: number;
  /** The storage layer and the limits of its routes. */
  storage: StorageRouteOptions;
}

export function restResources(parts: RestNodeParts): RestResource[] {
  const contracts = contractServices(parts);
  const identities = new IdentityLookup(contracts.calls);
  return [
    statusResource({
      routeTable: parts.routeTable,
      fileCount: () => parts.storage.storage.fileCount(),
      peersCount: () => 0,
    }),
    cryptoResource({ identityKey: parts.identityKey, resolveOwner: identities.resolveOwner }),
    contractResource(contracts),
    identityResource(identities),
    storageResource(parts.storage),
    nodeEventsResource(parts.bus, parts.wsMaxBacklogBytes),
  ];
}
