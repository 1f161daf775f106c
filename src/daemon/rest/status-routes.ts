/**
 * `GET /status/ping` (the one public operation) and `GET /status/meta`: the node metadata of
 * the spec. `serviceNetworkNodeVersion` has the form
 * `service/v<package version>/<platform>-<arch>/node-<Node.js version>`, e.g.
 * `service/v0.1.0/linux-x64/node-v20.20.2` (the spec replaces the brand with "service").
 */
import type { NodeMeta } from '../../shared/rest-api.js';
import { PACKAGE_VERSION } from '../../shared/version.js';
import { restRoute, type RestResource } from './resource.js';
import type { RouteTable } from './route-table.js';

export interface StatusSources {
  routeTable: RouteTable;
  /** Files the storage layer lists. */
  fileCount(): number;
  /** Connected peers; a single-validator node has none. */
  peersCount(): number;
}

export function serviceNetworkNodeVersion(): string {
  return `service/v${PACKAGE_VERSION}/${process.platform}-${process.arch}/node-${process.version}`;
}

const ROUTE_GROUPS_SCHEMA = {
  type: 'array',
  items: { type: 'array', items: { type: 'string' } },
  description: "One array per resource, each route as '<METHOD> => <path> (<handler>)'.",
};

export function statusResource(sources: StatusSources): RestResource {
  return {
    name: 'status',
    description: 'Liveness and node metadata.',
    routes: [
      restRoute({
        method: 'GET',
        path: '/status/ping',
        operationId: 'ping',
        summary: 'Liveness check; needs no token.',
        public: true,
        response: {
          type: 'object',
          required: ['data'],
          properties: { data: { type: 'string', enum: ['pong'] } },
        },
        handle: () => ({ data: 'pong' }),
      }),
      restRoute({
        method: 'GET',
        path: '/status/meta',
        operationId: 'meta',
        summary: 'Node metadata: versions, counts and the routes this server serves.',
        response: {
          type: 'object',
          required: ['data'],
          properties: {
            data: {
              type: 'object',
              required: [
                'nodeJsVersion',
                'fileCount',
                'peersCount',
                'serviceNetworkNodeVersion',
                'apiRoutes',
                'wsRoutes',
              ],
              properties: {
                nodeJsVersion: { type: 'string' },
                fileCount: { type: 'integer' },
                peersCount: { type: 'integer' },
                serviceNetworkNodeVersion: { type: 'string' },
                apiRoutes: ROUTE_GROUPS_SCHEMA,
                wsRoutes: ROUTE_GROUPS_SCHEMA,
              },
            },
          },
        },
        handle: (): { data: NodeMeta } => ({
          data: {
            nodeJsVersion: process.version,
            fileCount: sources.fileCount(),
            peersCount: sources.peersCount(),
            serviceNetworkNodeVersion: serviceNetworkNodeVersion(),
            apiRoutes: sources.routeTable.apiRoutes(),
            wsRoutes: sources.routeTable.wsRoutes(),
          },
        }),
      }),
    ],
  };
}
