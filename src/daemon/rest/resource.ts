/**
 * What a REST resource module hands the server: its operations as data (method, path, JSON
 * schemas, handler) and its WebSocket routes. The server registers them on fastify, which
 * validates every body, path and query parameter against the schemas, serialises answers from
 * the response schema, and feeds the same schemas to the OpenAPI document and the route lists
 * of `GET /status/meta`. A new resource is one module that exports a `RestResource`, added to
 * the list in `resources.ts`.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { WebSocket } from 'ws';

/** A JSON schema as ajv and the OpenAPI generator read it. */
export type JsonSchema = Record<string, unknown>;

/** The validated inputs of one request. */
export interface RestInput<B, P, Q> {
  body: B;
  params: P;
  query: Q;
  headers: IncomingHttpHeaders;
}

/**
 * A handler's answer that is a byte stream rather than JSON (a raw download): sent as is with
 * its type and length; the response schema is not applied.
 */
/** The content type of the JSON answers, error bodies included, as fastify writes them. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export class RawContent {
  constructor(
    readonly stream: Readable,
    readonly length: number,
    readonly contentType = 'application/octet-stream',
  ) {}
}

export interface RestRoute<B = unknown, P = unknown, Q = unknown> {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path under the `/v1/api` prefix, fastify syntax (`/crypto/verify/:owner`). */
  path: string;
  /** The handler's name: `operationId` in OpenAPI, `(<handler>)` in the meta route lists. */
  operationId: string;
  summary: string;
  description?: string;
  /** Served without the token; only `GET /status/ping` (decisions §3). */
  public?: boolean;
  body?: JsonSchema;
  /**
   * The body is a byte stream (`application/octet-stream`), handed to the handler as the
   * request's `Readable` without a size limit of the server's: the handler applies its own.
   */
  rawBody?: boolean;
  /** Content types of the 200 answer, for OpenAPI, when not JSON (a `RawContent` answer). */
  produces?: readonly string[];
  params?: JsonSchema;
  querystring?: JsonSchema;
  /** Schema of the 200 body. */
  response: JsonSchema;
  /**
   * Counts against `--rest.expensive-rate` (answers 429 past it): operations that hold the
   * main thread for milliseconds (ECIES) or run the EVM.
   */
  expensive?: boolean;
  /** Error statuses beyond the ones every route can answer (400, 401, 403, 413, 500). */
  errors?: readonly number[];
  handle(input: RestInput<B, P, Q>): Promise<unknown> | unknown;
}

export interface RestSocketRoute {
  /** Path under the `/v1/api` prefix. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** Called with each connection the server accepted (Host, Origin and token checked). */
  open(socket: WebSocket, request: IncomingMessage): void;
}

export interface RestResource {
  /** The OpenAPI tag and the group of its routes in `apiRoutes`/`wsRoutes`. */
  name: string;
  description: string;
  routes: readonly RestRoute[];
  sockets?: readonly RestSocketRoute[];
}

/** Types a route's handler inputs from its generic arguments, for use in resource modules. */
export function restRoute<B = unknown, P = unknown, Q = unknown>(
  route: RestRoute<B, P, Q>,
): RestRoute {
  return route as RestRoute;
}
