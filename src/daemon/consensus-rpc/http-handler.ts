/**
 * The consensus RPC over plain HTTP: CometBFT's URI form (`GET /block?height=5`, answered with
 * id -1 and an HTTP status that follows the error code) and JSON-RPC over `POST /` (always
 * 200, like CometBFT). `GET /` lists the routes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidInputError } from '../errors.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { cometError, errorText, successText } from './comet-envelope.js';
import { handleRequestText } from './request-handler.js';
import { RouteArgs } from './route-args.js';
import { ROUTES, callRoute } from './routes.js';
import type { RouteContext } from './routes.js';

/** Largest HTTP request body and WebSocket message (CometBFT's `max_body_bytes` default). */
export const MAX_BODY_BYTES = 1_000_000;

function statusOf(code: number): number {
  if (code === RpcErrorCode.methodNotFound) return 404;
  if (
    code === RpcErrorCode.invalidParams ||
    code === RpcErrorCode.invalidRequest ||
    code === RpcErrorCode.parseError
  ) {
    return 400;
  }
  return 500;
}

function sendJson(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.removeAllListeners('data');
        reject(new InvalidInputError(`request body larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function routeListing(): string {
  return `Available endpoints:\n${[...ROUTES.keys()].map((name) => `/${name}`).join('\n')}\n/websocket (subscribe, unsubscribe, unsubscribe_all)\n`;
}

/** The request listener of the consensus RPC's HTTP server. */
export function httpHandler(
  context: RouteContext,
  onInternal: (error: unknown) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://consensus-rpc');
    if (request.method === 'POST' && url.pathname === '/') {
      const reply = handleRequestText(
        await readBody(request),
        (method, params) => callRoute(ROUTES, method, params, context),
        onInternal,
      );
      if (reply === undefined) response.writeHead(204).end();
      else sendJson(response, 200, reply);
      return;
    }
    if (request.method !== 'GET') {
      response.setHeader('allow', 'GET, POST');
      throw new RpcError(RpcErrorCode.invalidRequest, `method ${request.method} not allowed`);
    }
    if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end(routeListing());
      return;
    }
    const name = url.pathname.slice(1);
    const route = ROUTES.get(name);
    if (route === undefined)
      throw new RpcError(RpcErrorCode.methodNotFound, `method ${name} not found`);
    const result = route.handle(
      RouteArgs.fromSearchParams(url.searchParams, route.params),
      context,
    );
    // CometBFT answers URI requests with id -1.
    sendJson(response, 200, successText(-1, result));
  };

  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      const rpcError = cometError(error, onInternal);
      if (response.headersSent) response.destroy();
      else sendJson(response, statusOf(rpcError.code), errorText(-1, rpcError));
    });
  };
}
