/**
 * JSON-RPC over HTTP: POST bodies in, responses out, through the shared dispatcher. The body
 * limit is enforced while reading (see http-request-reader.ts), so an oversized request costs
 * the daemon at most the limit in memory and gets a clear 413 answer; the connection is then
 * closed.
 */
import type { HostPort } from '../../shared/config/option-parsers.js';
import type { AuthToken } from '../datadir/auth-token.js';
import type { Logger } from '../logger.js';
import type { RpcDispatcher } from '../rpc/dispatcher.js';
import type { Reply } from '../rpc/reply.js';
import { RpcErrorCode } from '../rpc/rpc-error.js';
import { isAuthenticated } from './auth.js';
import {
  ListenerGuard,
  loopbackTrusted,
  type BrowserPolicy,
  type Refusal,
} from './browser-guard.js';
import type { HttpProtocolError } from './http-request-reader.js';
import { createHttpServer, type HttpResponse } from './http-server.js';
import { endpointUrl, listen } from './listen.js';
import { probeResponse } from '../metrics/probe-routes.js';
import type { ReadinessProbe } from '../metrics/readiness.js';

/** The limits of one connection and of the listener, from the option table. */
export interface HttpTransportLimits {
  maxBodySize: number;
  maxConnections: number;
  readTimeoutMs: number;
  idleTimeoutMs: number;
  maxBufferedResponse: number;
}

export interface HttpRpcServerOptions {
  address: HostPort;
  limits: HttpTransportLimits;
  /** Host and Origin allowlists (see browser-guard.ts). */
  browserPolicy: BrowserPolicy;
  token: AuthToken;
  dispatcher: RpcDispatcher;
  logger: Logger;
  /** Answers `GET /health` and `GET /ready` (see `metrics/readiness.ts`). */
  probe: ReadinessProbe;
}

export interface RunningServer {
  url: string;
  /** Whether the listener still accepts connections. */
  listening(): boolean;
  close(): Promise<void>;
}

/** The media types geth takes for a JSON-RPC body, with parameters (`; charset=utf-8`) or none. */
const JSON_RPC_CONTENT_TYPE = /^application\/(json|json-rpc|jsonrequest)\s*(;|$)/i;

/** Node's own default for the request line plus headers. */
const MAX_HEADER_SIZE = 16 * 1024;

function jsonError(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): HttpResponse {
  return {
    status,
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }),
  };
}

function forbidden(refused: Refusal): HttpResponse {
  return {
    status: refused.status,
    contentType: 'text/plain; charset=utf-8',
    body: `${refused.message}\n`,
  };
}

function rpcResponse(reply: Reply | undefined, cors?: Record<string, string>): HttpResponse {
  return reply === undefined
    ? { status: 204, headers: cors }
    : { status: 200, headers: cors, body: reply };
}

export async function startHttpRpcServer(options: HttpRpcServerOptions): Promise<RunningServer> {
  const { dispatcher, logger, limits } = options;
  const guard = new ListenerGuard(options.browserPolicy, options.address.host, 'POST, OPTIONS');

  const http = createHttpServer({
    limits: {
      maxHeaderSize: MAX_HEADER_SIZE,
      maxBodySize: limits.maxBodySize,
      bodyLimitFlag: '--json-rpc.max-body-size',
    },
    keepAliveTimeoutMs: limits.idleTimeoutMs,
    requestTimeoutMs: limits.readTimeoutMs,
    requestTimeoutFlag: '--json-rpc.read-timeout',
    maxBufferedResponse: limits.maxBufferedResponse,
    maxConnections: limits.maxConnections,
    overCapacity: jsonError(
      503,
      RpcErrorCode.limitExceeded,
      `too many connections: the limit is ${limits.maxConnections} (--json-rpc.max-connections)`,
    ),
    onOverCapacity: () =>
      logger.warn('JSON-RPC HTTP connection refused: connection limit reached', {
        maxConnections: limits.maxConnections,
      }),
    refuse: (error: HttpProtocolError) =>
      jsonError(
        error.status,
        error.status === 413 || error.status === 408
          ? RpcErrorCode.limitExceeded
          : RpcErrorCode.invalidRequest,
        error.message,
      ),
    internalError: jsonError(500, RpcErrorCode.internalError, 'internal error'),
    onHandlerError: (error) =>
      logger.error('HTTP JSON-RPC request failed', { error: String(error) }),
    handle: ({ head, body }, peer) => {
      const refused = guard.checkRequest(head.headers);
      if (refused) return forbidden(refused);
      if (head.method === 'OPTIONS')
        return { status: 204, headers: guard.preflightHeaders(head.headers) };
      const cors = guard.corsHeaders(head.headers);
      if (head.method === 'GET' || head.method === 'HEAD') {
        const probed = probeResponse(head.target, options.probe);
        if (probed !== undefined) return { ...probed, headers: cors };
      }
      if (head.method !== 'POST') {
        return jsonError(
          405,
          RpcErrorCode.invalidRequest,
          `method ${head.method} not allowed: send JSON-RPC requests with POST`,
          { ...cors, Allow: 'POST, OPTIONS' },
        );
      }
      const contentType = head.headers['content-type'] ?? '';
      if (!JSON_RPC_CONTENT_TYPE.test(contentType)) {
        return jsonError(
          415,
          RpcErrorCode.invalidRequest,
          `unsupported content type "${contentType}": use application/json`,
          cors,
        );
      }
      const encoding = head.headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
      if (encoding !== 'identity' && encoding !== '') {
        // The body is read as JSON text as it came: a compressed one would only be a parse error.
        return jsonError(
          415,
          RpcErrorCode.invalidRequest,
          `unsupported content encoding "${head.headers['content-encoding']}": send the body uncompressed`,
          cors,
        );
      }
      const reply = dispatcher.handleText(body.toString('utf8'), {
        transport: 'http',
        authenticated: isAuthenticated(head, options.token, false),
        loopback: loopbackTrusted(peer.loopback, head.headers),
        remoteAddress: peer.address,
      });
      return reply instanceof Promise
        ? reply.then((text) => rpcResponse(text, cors))
        : rpcResponse(reply, cors);
    },
  });

  const port = await listen(http.server, options.address, 'json-rpc.address');
  return {
    url: endpointUrl('http', options.address.host, port),
    listening: () => http.server.listening,
    close: () => http.close(),
  };
}
