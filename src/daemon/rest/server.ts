/**
 * The REST server (`--rest.address`, prefix `/v1/api`) on fastify: ajv validates every body,
 * path and query parameter against the route's schema, @fastify/swagger turns the same schemas
 * into `GET /v1/api/openapi.json`, and @fastify/websocket (on `ws`) serves the WebSocket
 * routes. Every request first passes the Host/Origin guard shared with the other listeners,
 * then the token check of decisions §3 (Bearer header; also `?token=` on WebSocket upgrades),
 * except routes marked public. Failures are answered by `error-mapping.ts` alone. Like the other
 * listeners, it caps its connections and gives a request head, and then a JSON body, a deadline
 * (`--rest.max-connections`, `--rest.read-timeout`); streamed uploads and downloads are paced
 * by the storage layer's idle limits instead.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { HostPort } from '../../shared/config/option-parsers.js';
import type { AuthToken } from '../datadir/auth-token.js';
import { InvalidInputError, RequestTimeoutError, UnauthorizedError } from '../../shared/errors.js';
import type { Logger } from '../logger.js';
import { WarningThrottle } from '../log/warning-throttle.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import { isAuthenticated } from '../transport/auth.js';
import { ListenerGuard, type BrowserPolicy } from '../transport/browser-guard.js';
import { endpointUrl, listenError } from '../transport/listen.js';
import { limitNodeHttpServer, nodeHttpServerOptions } from '../transport/node-http-limits.js';
import { parseExactJson } from '../../shared/exact-json.js';
import type { RestErrorBody } from '../../shared/rest-api.js';
import { ERROR_BODY_SCHEMA, INTERNAL_ERROR_MESSAGE, restErrorOf } from './error-mapping.js';
import { answeredWhileDiscarding, discardRest } from './lingering-close.js';
import {
  JSON_CONTENT_TYPE,
  RawContent,
  type JsonSchema,
  type RestResource,
  type RestRoute,
  type RestSocketRoute,
} from './resource.js';
import { ExpensiveOperationLimit } from './rate-limit.js';
import type { RouteTable } from './route-table.js';
import { lazySerializerFactory, lazyValidatorFactory } from './lazy-schema-compilers.js';
import { bodyWithDeadline } from './body-deadline.js';

/** Every REST path starts with this (spec: "Versioning"). */
export const REST_PREFIX = '/v1/api';
/** Version of the REST interface, as the spec gives it. */
export const REST_API_VERSION = '1.0.0';
/** Largest message a client may send on a REST WebSocket: they only listen. */
const WS_MAX_CLIENT_MESSAGE_BYTES = 4096;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without the token. */
    public?: boolean;
    /** The resource the route belongs to (its group in the meta route lists). */
    resource?: string;
    /** The body is streamed to the handler, which limits its pace itself. */
    streamedBody?: boolean;
    /** A WebSocket route: the only kind an upgrade request may reach. */
    webSocket?: boolean;
  }
}

export interface RestServerOptions {
  address: HostPort;
  maxBodySize: number;
  /** `--rest.expensive-rate`: expensive operations per second, 0 for no limit. */
  expensiveRate: number;
  /** `--rest.max-connections`: more are closed as they arrive. */
  maxConnections: number;
  /**
   * `--rest.read-timeout`: for a request's head, then for a body parsed whole, and for a kept-alive
   * connection without a request.
   */
  readTimeoutMs: number;
  browserPolicy: BrowserPolicy;
  token: AuthToken;
  resources: readonly RestResource[];
  /** Filled with the routes as fastify registers them. */
  routeTable: RouteTable;
  logger: Logger;
  /** Told about every answered request; without it no hook is added. */
  metrics?: Pick<MetricsRecorder, 'restRequest'>;
}

export interface RestServer {
  /** Base URL of the interface, prefix included: `http://127.0.0.1:1317/v1/api`. */
  url: string;
  listening(): boolean;
  close(): Promise<void>;
}

function errorBody(code: number, message: string): RestErrorBody {
  return { error: { code, message } };
}

/**
 * Answers a request Node's HTTP parser refused (a malformed head, one over the header size
 * limit, one not received in time) with the interface's error body; fastify's default answers
 * these in a shape of its own. The connection is closed after it, as Node does.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Its request was answered already; a second answer would be one nobody asked for.
  if (answeredWhileDiscarding(socket)) {
    socket.destroy();
    return;
  }
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request head not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request head too large: the request line and headers exceed 16 KiB']
        : [400, `malformed HTTP request (${error.code ?? error.message})`];
  const body = JSON.stringify(errorBody(status, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n` +
        `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Longest path parameter the router takes: above every parameter's own limit (a contract name or
 * address is at most 128 characters), so those limits are told by the route's schema.
 */
const MAX_PATH_PARAMETER_LENGTH = 1024;

/**
 * The message of a request fastify's router refuses before any route or hook sees it (its
 * default answer has a shape of its own): a path with a malformed %-escape (`%ZZ`, an escaped
 * lone surrogate) or a path parameter over `MAX_PATH_PARAMETER_LENGTH`. Undefined for any other.
 */
function routerRefusal(error: FastifyError, path: string): string | undefined {
  if (error.code === 'FST_ERR_BAD_URL') {
    return `malformed path ${path}: a %-escape that does not decode as UTF-8`;
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return `path parameter longer than ${MAX_PATH_PARAMETER_LENGTH} characters in ${path.slice(0, 256)}`;
  }
  return undefined;
}

/**
 * Answers a WebSocket handshake that the ws package refused after the route accepted it, with
 * the interface's error body and ws's reason (`Missing or invalid Sec-WebSocket-Key header`).
 */
function answerHandshakeError(error: Error, socket: Duplex): void {
  if (socket.destroyed) return;
  const status = 400;
  const body = JSON.stringify(errorBody(status, `WebSocket handshake refused: ${error.message}`));
  const versions = /Sec-WebSocket-Version/.test(error.message)
    ? 'Sec-WebSocket-Version: 13, 8\r\n'
    : '';
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n${versions}` +
      `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function isUpgrade(request: FastifyRequest): boolean {
  return request.headers.upgrade?.toLowerCase() === 'websocket';
}

function hasBody(request: FastifyRequest): boolean {
  const { headers } = request;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
}

/**
 * Refuses a body of another type than the route takes, before a parser reads it: fastify's own
 * parsers would take a text/plain or octet-stream body to a JSON route and leave the schema to
 * say `body must be object`, and a JSON body to an upload would reach the handler.
 */
function refuseOtherBodyType(request: FastifyRequest): void {
  const streamed = request.routeOptions.config.streamedBody === true;
  if (!streamed && request.routeOptions.schema?.body === undefined) return;
  const expected = streamed ? 'application/octet-stream' : 'application/json';
  const sent = request.headers['content-type']?.split(';')[0].trim().toLowerCase();
  if (sent !== expected) {
    throw new InvalidInputError(`request body must be ${expected} (Content-Type)`);
  }
  // JSON is parsed as it came: a compressed body would only be a parse error full of binary.
  // (An upload refuses an encoding in its own words, `storage-routes.ts`.)
  const encoding = request.headers['content-encoding'];
  if (!streamed && encoding !== undefined && !/^\s*(identity)?\s*$/i.test(encoding)) {
    throw new InvalidInputError(
      `Content-Encoding ${encoding}: send the JSON body as it is, without an encoding`,
    );
  }
}

/** The statuses a route can answer besides 200, each with the error body schema. */
function errorResponses(
  route: { public?: boolean; expensive?: boolean; errors?: readonly number[] },
  body: boolean,
) {
  const statuses = new Set<number>([400, 403, 500, ...(route.errors ?? [])]);
  if (!route.public) statuses.add(401);
  if (route.expensive) statuses.add(429);
  // A body may be too large, or (`--rest.read-timeout`, an upload's idle time) too slow.
  if (body) {
    statuses.add(408);
    statuses.add(413);
  }
  const responses: Record<number, JsonSchema> = {};
  for (const status of [...statuses].sort((a, b) => a - b)) {
    responses[status] = { ...ERROR_BODY_SCHEMA, description: STATUS_CODES[status] };
  }
  return responses;
}

/** The input schemas a route declares; absent ones are left out, not set to undefined. */
/** How the OpenAPI document shows the body of a route that streams it (RestRoute.rawBody). */
const STREAMED_BODY_DOCUMENT = {
  type: 'string',
  format: 'binary',
  description: 'The bytes, streamed.',
};

function inputSchemas(route: RestRoute): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  if (route.body) schemas.body = route.body;
  if (route.params) schemas.params = route.params;
  if (route.querystring) schemas.querystring = route.querystring;
  return schemas;
}

function addRoute(
  scope: FastifyInstance,
  resource: RestResource,
  route: RestRoute,
  limit: ExpensiveOperationLimit,
): void {
  scope.route({
    method: route.method,
    url: route.path,
    config: { public: route.public, resource: resource.name, streamedBody: route.rawBody },
    schema: {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [resource.name],
      security: route.public ? [] : [{ bearerAuth: [] }],
      ...inputSchemas(route),
      ...(route.rawBody ? { consumes: ['application/octet-stream'] } : {}),
      ...(route.produces ? { produces: route.produces } : {}),
      response: {
        200: { description: 'Success', ...route.response },
        ...errorResponses(route, route.body !== undefined || route.rawBody === true),
      },
    },
    // After authentication and validation, so refused requests do not spend the budget.
    ...(route.expensive ? { preHandler: async () => limit.take() } : {}),
    handler: async (request, reply) => {
      const answer = await route.handle({
        body: request.body,
        params: request.params,
        query: request.query,
        headers: request.headers,
      });
      if (!(answer instanceof RawContent)) return answer;
      reply.header('content-type', answer.contentType);
      reply.header('content-length', String(answer.length));
      return reply.send(answer.stream);
    },
  });
}

function addSocketRoute(
  scope: FastifyInstance,
  resource: RestResource,
  socketRoute: RestSocketRoute,
): void {
  scope.route({
    method: 'GET',
    url: socketRoute.path,
    config: { resource: resource.name, webSocket: true },
    schema: {
      operationId: socketRoute.operationId,
      summary: socketRoute.summary,
      description: socketRoute.description,
      tags: [resource.name],
      security: [{ bearerAuth: [] }],
      querystring: {
        type: 'object',
        properties: {
          token: { type: 'string', description: 'The token, for clients that cannot set headers.' },
        },
      },
      response: {
        101: { description: 'Switching Protocols: the event stream follows.', type: 'null' },
        ...errorResponses({}, false),
      },
    },
    // Set as wsHandler, not with `websocket: true`, which would hide the route from OpenAPI.
    handler: () => {
      throw new InvalidInputError(
        `${REST_PREFIX}${socketRoute.path} is a WebSocket: send an upgrade request`,
      );
    },
    wsHandler: (socket, request) => socketRoute.open(socket, request.raw),
  });
}

async function buildApp(options: RestServerOptions, guard: ListenerGuard) {
  const { token, logger, maxBodySize, readTimeoutMs, routeTable } = options;
  const refusals = new WarningThrottle(logger.warn.bind(logger));
  const nodeOptions = nodeHttpServerOptions(readTimeoutMs);
  const app = Fastify({
    // No requestTimeout: it would end streamed uploads too; the preParsing hook below times
    // the other bodies.
    http: { ...nodeOptions, requestTimeout: 0 },
    keepAliveTimeout: nodeOptions.keepAliveTimeout,
    bodyLimit: maxBodySize,
    clientErrorHandler: answerClientError,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    frameworkErrors: (error, request, reply) => {
      const path = (request.raw.url ?? '').split('?')[0];
      const message = routerRefusal(error, path);
      if (message === undefined) {
        logger.error('REST request refused by the router', { path, error: String(error) });
      }
      const status = message === undefined ? 500 : 400;
      return (reply as FastifyReply)
        .code(status)
        .header('content-type', JSON_CONTENT_TYPE)
        .send(errorBody(status, message ?? INTERNAL_ERROR_MESSAGE));
    },
    exposeHeadRoutes: false,
    logger: false,
    schemaController: {
      compilersFactory: {
        buildValidator: lazyValidatorFactory(),
        buildSerializer: lazySerializerFactory(),
      },
    },
  });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'node-cli REST interface',
        version: REST_API_VERSION,
        description:
          'Node metadata, contracts, identities, signing and encryption with the node key, the storage layer, node events.',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'The token of <datadir>/auth.token.',
          },
        },
      },
      tags: options.resources.map(({ name, description }) => ({ name, description })),
    },
    // A streamed body has no schema to validate against, but the document still describes it.
    transform: ({ schema, url, route }) => ({
      schema: route.config?.streamedBody ? { ...schema, body: STREAMED_BODY_DOCUMENT } : schema,
      url,
    }),
  });
  await app.register(fastifyWebsocket, { options: { maxPayload: WS_MAX_CLIENT_MESSAGE_BYTES } });
  // A handshake the ws package refuses (a malformed Sec-WebSocket-Key, an unknown version) is
  // told in the interface's error shape; ws's own answer is a text/html sentence.
  app.websocketServer.on('wsClientError', (error: Error, socket: Duplex) =>
    answerHandshakeError(error, socket),
  );

  // Streamed uploads: the handler reads the request itself (RestRoute.rawBody).
  app.addContentTypeParser('application/octet-stream', (_request, payload, done) =>
    done(null, payload),
  );
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    try {
      done(null, parseExactJson(text as string, 'request body'));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(REST_PREFIX)) return;
    routeTable.add({
      method: String(route.method),
      url: route.url,
      handler: String(route.schema?.operationId ?? 'anonymous'),
      resource: route.config?.resource ?? 'other',
      websocket: route.wsHandler !== undefined,
    });
  });

  const { metrics } = options;
  if (metrics !== undefined) {
    app.addHook('onResponse', async (request, reply) => {
      // The route's pattern, not the path, keeps the label set bounded.
      const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
      metrics.restRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    });
  }

  app.addHook('onRequest', async (request, reply) => {
    const upgrade = isUpgrade(request);
    const refused = upgrade
      ? guard.checkUpgrade(request.headers)
      : guard.checkRequest(request.headers);
    if (refused) return reply.code(refused.status).send(errorBody(refused.status, refused.message));
    if (request.method === 'OPTIONS') {
      return reply.code(204).headers(guard.preflightHeaders(request.headers)).send();
    }
    const cors = guard.corsHeaders(request.headers);
    if (cors) reply.headers(cors);
    // Refused before the WebSocket plugin would accept the upgrade only to close the socket.
    if (upgrade && !request.is404 && !request.routeOptions.config.webSocket) {
      throw new InvalidInputError(
        `${request.method} ${request.url.split('?')[0]} is not a WebSocket: send it without an Upgrade header`,
      );
    }
    if (request.routeOptions.config.public) return;
    if (!isAuthenticated({ headers: request.headers, url: request.url }, token, upgrade)) {
      refusals.report('unauthorized', 'REST request refused: no valid token', {
        route: `${request.method} ${request.url.split('?')[0]}`,
        from: request.ip,
      });
      throw new UnauthorizedError(
        `unauthorized: ${request.method} ${request.url.split('?')[0]} requires authentication`,
      );
    }
  });

  app.addHook('preParsing', async (request, _reply, payload) => {
    if (!hasBody(request)) return payload;
    refuseOtherBodyType(request);
    if (request.routeOptions.config.streamedBody) return payload;
    return bodyWithDeadline(
      payload,
      readTimeoutMs,
      () =>
        new RequestTimeoutError(
          `request body not received within ${readTimeoutMs} ms (--rest.read-timeout)`,
        ),
    );
  });

  app.setErrorHandler((error, request, reply) => {
    const consumes = (request.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes;
    const { status, body } = restErrorOf(error, maxBodySize, consumes?.[0]);
    if (status === 500) {
      logger.error('REST operation failed', {
        route: `${request.method} ${request.url.split('?')[0]}`,
        error: String((error as Error)?.stack ?? error),
      });
    }
    // A refused body may still be arriving. A streamed one (an upload) may be gigabytes that
    // the client is still sending: answer on the open connection while discarding the rest.
    // Any other is small: end the connection instead of reading it.
    if (hasBody(request) && !request.raw.complete) {
      if (request.routeOptions.config.streamedBody) discardRest(request.raw);
      else reply.header('connection', 'close');
    }
    // A download that failed before its first byte had its headers set for the bytes.
    reply.removeHeader('content-length');
    reply.header('content-type', JSON_CONTENT_TYPE);
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A path that exists under other methods is a 405 that lists them, as HTTP has it.
    const allowed = routeTable.methodsAt(path);
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(
          errorBody(
            405,
            `method ${request.method} not allowed on ${path}: use ${allowed.join(' or ')}`,
          ),
        );
    }
    return reply.code(404).send(errorBody(404, `no route ${request.method} ${path}`));
  });

  const limit = new ExpensiveOperationLimit(options.expensiveRate);
  await app.register(
    async (scope) => {
      for (const resource of options.resources) {
        for (const route of resource.routes) addRoute(scope, resource, route, limit);
        for (const socketRoute of resource.sockets ?? [])
          addSocketRoute(scope, resource, socketRoute);
      }
      scope.get(
        '/openapi.json',
        {
          config: { resource: 'openapi' },
          schema: {
            operationId: 'openapi',
            summary: 'This OpenAPI 3 document.',
            tags: ['openapi'],
            security: [{ bearerAuth: [] }],
            response: {
              200: {
                description: 'The OpenAPI 3.0 document of this interface.',
                type: 'object',
                additionalProperties: true,
              },
              ...errorResponses({}, false),
            },
          },
        },
        async () => app.swagger(),
      );
    },
    { prefix: REST_PREFIX },
  );
  return app;
}

export async function startRestServer(options: RestServerOptions): Promise<RestServer> {
  const { address } = options;
  const guard = new ListenerGuard(
    options.browserPolicy,
    address.host,
    'GET, POST, DELETE, OPTIONS',
  );
  const app = await buildApp(options, guard);
  limitNodeHttpServer(
    app.server,
    {
      maxConnections: options.maxConnections,
      readTimeoutMs: options.readTimeoutMs,
      listener: 'REST',
      connectionLimitFlag: '--rest.max-connections',
    },
    options.logger,
  );
  try {
    await app.listen({ host: address.host, port: address.port });
  } catch (error) {
    await app.close();
    throw listenError(error as NodeJS.ErrnoException, address, 'rest.address');
  }
  const bound = app.server.address();
  const port = typeof bound === 'object' && bound ? bound.port : address.port;
  return {
    url: endpointUrl('http', address.host, port, REST_PREFIX),
    listening: () => app.server.listening,
    close: () => app.close(),
  };
}
