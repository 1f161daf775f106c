/**
 * The consensus RPC over plain HTTP: CometBFT's URI form (`GET /block?height=5`, answered with
 * id -1 and an HTTP status that follows the error code) and JSON-RPC over `POST /` (always
 * 200, like CometBFT). `GET /` lists the routes.
 *
 * A body over the limit is refused with 413 as soon as its declared length or its bytes pass
 * the limit, and the connection is closed rather than read to the end.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LimitExceededError } from '../../shared/errors.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { BodyBuffer } from '../transport/body-buffer.js';
import { cometError, errorText, successText } from './comet-envelope.js';
import { handleRequestText } from './request-handler.js';
import type { RequestLimits } from './request-handler.js';
import { RouteArgs } from './route-args.js';
import { ROUTES, callRoute } from './routes.js';
import type { RouteContext } from './routes.js';

/** The HTTP listener's limits: the request limits plus the largest body (`--rpc.max-body-bytes`). */
export interface HttpLimits extends RequestLimits {
  maxBodyBytes: number;
}

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

/**
 * A request body: its text, or why there is none: it passed the limit (reading stopped there)
 * or the client went away first (Node also ends a request that misses `--rpc.read-timeout`).
 */
type Body =
  | { kind: 'text'; text: string }
  | { kind: 'too-large' }
  | { kind: 'too-many-pieces' }
  | { kind: 'aborted' };

/**
 * Most pieces (chunks of a chunked body) one body may come in, whatever its size: Node's parser
 * hands each one to JavaScript as an event of its own, which costs microseconds, so a
 * megabyte sent as one-byte chunks cost seconds of the main thread. Clients send bodies in
 * few pieces (a Content-Length body in socket reads of up to 64 KiB).
 */
const MAX_BODY_PIECES = 4096;

function readBody(request: IncomingMessage, maxBytes: number): Promise<Body> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes)
    return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const body = new BodyBuffer(maxBytes);
    let pieces = 0;
    const stop = (outcome: Body) => {
      request.off('data', onData);
      request.pause();
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      if (body.size + chunk.length > maxBytes) stop({ kind: 'too-large' });
      else if (++pieces > MAX_BODY_PIECES) stop({ kind: 'too-many-pieces' });
      else body.append(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve({ kind: 'text', text: body.take().toString('utf8') }));
    request.on('error', () => resolve({ kind: 'aborted' }));
  });
}

/** Answers 413 and closes the connection, whose unread rest is not worth reading. */
function refuseBody(response: ServerResponse, reason: string): void {
  const body = errorText('-1', cometError(new LimitExceededError(reason)));
  response.writeHead(413, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

function routeListing(): string {
  return `Available endpoints:\n${[...ROUTES.keys()].map((name) => `/${name}`).join('\n')}\n/websocket (subscribe, unsubscribe, unsubscribe_all)\n`;
}

/** The request listener of the consensus RPC's HTTP server. */
export function httpHandler(
  context: RouteContext,
  limits: HttpLimits,
  onInternal: (error: unknown) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://consensus-rpc');
    if (request.method === 'POST' && url.pathname === '/') {
      const body = await readBody(request, limits.maxBodyBytes);
      if (body.kind === 'aborted') return;
      if (body.kind !== 'text') {
        refuseBody(
          response,
          body.kind === 'too-large'
            ? `request body too large: the limit is ${limits.maxBodyBytes} bytes (--rpc.max-body-bytes)`
            : `request body in more than ${MAX_BODY_PIECES} chunks: send it in larger ones`,
        );
        return;
      }
      const reply = handleRequestText(
        body.text,
        limits,
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
    sendJson(response, 200, successText('-1', result));
  };

  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      const rpcError = cometError(error, onInternal);
      if (response.headersSent) response.destroy();
      else sendJson(response, statusOf(rpcError.code), errorText('-1', rpcError));
    });
  };
}
