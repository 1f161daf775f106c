/**
 * JSON-RPC over HTTP: POST bodies in, responses out, through the shared dispatcher. The body
 * limit is enforced while reading (see http-request-reader.ts), so an oversized request costs
 * the daemon at most the limit in memory and gets a clear 413 answer; the connection is then
 * closed.
 */
import type { HostPort } from '../config/option-parsers.js';
import type { AuthToken } from '../datadir/auth-token.js';
import type { Logger } from '../logger.js';
import type { RpcDispatcher } from '../rpc/dispatcher.js';
import { RpcErrorCode } from '../rpc/rpc-error.js';
import { isAuthenticated } from './auth.js';
import type { HttpProtocolError, HttpRequestHead } from './http-request-reader.js';
import { createHttpServer, type HttpResponse } from './http-server.js';
import { endpointUrl, listen } from './listen.js';

export interface HttpRpcServerOptions {
  address: HostPort;
  maxBodySize: number;
  corsOrigins: readonly string[];
  token: AuthToken;
  dispatcher: RpcDispatcher;
  logger: Logger;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Node's own default for the request line plus headers. */
const MAX_HEADER_SIZE = 16 * 1024;
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const HEADERS_TIMEOUT_MS = 30_000;

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

function corsHeaders(
  head: HttpRequestHead,
  origins: readonly string[],
): Record<string, string> | undefined {
  const origin = head.headers.origin;
  if (!origin || origins.length === 0) return undefined;
  if (!origins.includes('*') && !origins.includes(origin)) return undefined;
  return {
    'Access-Control-Allow-Origin': origins.includes('*') ? '*' : origin,
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers': 'content-type, authorization',
    'Access-Control-Max-Age': '600',
    Vary: 'origin',
  };
}

function rpcResponse(reply: string | undefined, cors?: Record<string, string>): HttpResponse {
  return reply === undefined
    ? { status: 204, headers: cors }
    : { status: 200, headers: cors, body: reply };
}

export async function startHttpRpcServer(options: HttpRpcServerOptions): Promise<RunningServer> {
  const { dispatcher, logger } = options;

  const http = createHttpServer({
    limits: {
      maxHeaderSize: MAX_HEADER_SIZE,
      maxBodySize: options.maxBodySize,
      bodyLimitFlag: '--json-rpc.max-body-size',
    },
    keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    refuse: (error: HttpProtocolError) =>
      jsonError(
        error.status,
        error.status === 413 ? RpcErrorCode.limitExceeded : RpcErrorCode.invalidRequest,
        error.message,
      ),
    internalError: jsonError(500, RpcErrorCode.internalError, 'internal error'),
    onHandlerError: (error) =>
      logger.error('HTTP JSON-RPC request failed', { error: String(error) }),
    handle: ({ head, body }, peer) => {
      const cors = corsHeaders(head, options.corsOrigins);
      if (head.method === 'OPTIONS') return { status: 204, headers: cors };
      if (head.method !== 'POST') {
        return jsonError(
          405,
          RpcErrorCode.invalidRequest,
          `method ${head.method} not allowed: send JSON-RPC requests with POST`,
          { ...cors, Allow: 'POST, OPTIONS' },
        );
      }
      const contentType = head.headers['content-type'] ?? '';
      if (!/^application\/json\b/i.test(contentType)) {
        return jsonError(
          415,
          RpcErrorCode.invalidRequest,
          `unsupported content type "${contentType}": use application/json`,
          cors,
        );
      }
      const reply = dispatcher.handleText(body.toString('utf8'), {
        transport: 'http',
        authenticated: isAuthenticated(head, options.token, false),
        loopback: peer.loopback,
        remoteAddress: peer.address,
      });
      return reply instanceof Promise
        ? reply.then((text) => rpcResponse(text, cors))
        : rpcResponse(reply, cors);
    },
  });

  const port = await listen(http.server, options.address, 'json-rpc.address');
  return { url: endpointUrl('http', options.address.host, port), close: () => http.close() };
}
