/**
 * JSON-RPC over HTTP: POST bodies in, responses out, through the shared dispatcher.
 * The body limit is enforced while reading, so an oversized request costs the daemon at most
 * the limit in memory and gets a clear 413 answer; the connection is then closed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { HostPort } from '../config/option-parsers.js';
import type { AuthToken } from '../datadir/auth-token.js';
import type { Logger } from '../logger.js';
import type { RpcDispatcher } from '../rpc/dispatcher.js';
import { RpcErrorCode } from '../rpc/rpc-error.js';
import { isAuthenticated } from './auth.js';
import { endpointUrl, isLoopback, listen } from './listen.js';

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

function sendJsonError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  close = false,
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
  });
  response.end(body);
}

function applyCors(
  request: IncomingMessage,
  response: ServerResponse,
  origins: readonly string[],
): void {
  const origin = request.headers.origin;
  if (!origin || origins.length === 0) return;
  if (!origins.includes('*') && !origins.includes(origin)) return;
  response.setHeader('access-control-allow-origin', origins.includes('*') ? '*' : origin);
  response.setHeader('access-control-allow-methods', 'POST, OPTIONS');
  response.setHeader('access-control-allow-headers', 'content-type, authorization');
  response.setHeader('access-control-max-age', '600');
  response.setHeader('vary', 'origin');
}

function readBody(request: IncomingMessage, limit: number): Promise<string | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.pause();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startHttpRpcServer(options: HttpRpcServerOptions): Promise<RunningServer> {
  const { dispatcher, logger } = options;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    applyCors(request, response, options.corsOrigins);
    if (request.method === 'OPTIONS') {
      response.writeHead(204).end();
      return;
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST, OPTIONS');
      sendJsonError(
        response,
        405,
        RpcErrorCode.invalidRequest,
        `method ${request.method} not allowed: send JSON-RPC requests with POST`,
      );
      return;
    }
    const contentType = request.headers['content-type'] ?? '';
    if (!/^application\/json\b/i.test(contentType)) {
      sendJsonError(
        response,
        415,
        RpcErrorCode.invalidRequest,
        `unsupported content type "${contentType}": use application/json`,
      );
      return;
    }
    const body = await readBody(request, options.maxBodySize);
    if (body === 'too-large') {
      sendJsonError(
        response,
        413,
        RpcErrorCode.limitExceeded,
        `request body too large: the limit is ${options.maxBodySize} bytes (--json-rpc.max-body-size)`,
        true,
      );
      request.socket.end();
      return;
    }
    const reply = await dispatcher.handleText(body, {
      transport: 'http',
      authenticated: isAuthenticated(request, options.token, false),
      loopback: isLoopback(request.socket.remoteAddress),
      remoteAddress: request.socket.remoteAddress ?? '',
    });
    if (reply === undefined) {
      response.writeHead(204).end();
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(reply),
    });
    response.end(reply);
  };

  const server = createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error('HTTP JSON-RPC request failed', { error: String(error) });
      if (!response.headersSent)
        sendJsonError(response, 500, RpcErrorCode.internalError, 'internal error');
      else response.destroy();
    });
  });
  server.headersTimeout = 30_000;
  const port = await listen(server, options.address, 'json-rpc.address');
  return {
    url: endpointUrl('http', options.address.host, port),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
