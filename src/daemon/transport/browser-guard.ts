/**
 * What every HTTP and WebSocket listener of the daemon checks before it serves a request, so a
 * web page in the operator's browser cannot use the node:
 *
 * - `Host` against `--json-rpc.vhosts` (plus the listener's own bound host): a page that
 *   rebinds its name to 127.0.0.1 reaches the listener "same-origin" and carries no cross-site
 *   mark but its own name in `Host`;
 * - a browser's `Origin` against `--json-rpc.cors` (HTTP requests) or `--json-rpc.ws-origins`
 *   (WebSocket upgrades, which browsers never subject to CORS). Requests without `Origin` come
 *   from programs (ethers, viem, cast, curl), not pages, and pass.
 *
 * Every listener uses the same three flags: one policy for the JSON-RPC, consensus and REST
 * listeners. Refusals are 403 with a one-line text body naming the flag that would allow the
 * request. The checks work on plain header values, so any server (our own HTTP server, Node's
 * `http`, a framework's hook) can call them.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  HostAllowlist,
  OriginAllowlist,
  hostHeaderName,
} from '../../shared/host-origin-patterns.js';

/** The three allowlists, as configured (`--json-rpc.vhosts`, `--json-rpc.cors`, `--json-rpc.ws-origins`). */
export interface BrowserPolicy {
  vhosts: readonly string[];
  corsOrigins: readonly string[];
  wsOrigins: readonly string[];
}

/** The request headers the guard reads; Node's `IncomingHttpHeaders` and our own heads fit. */
export interface GuardedHeaders {
  host?: string | undefined;
  origin?: string | undefined;
}

/** A refused request: always 403, with a text body that names the flag to set. */
export interface Refusal {
  status: 403;
  message: string;
}

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = '600';

function refusal(message: string): Refusal {
  return { status: 403, message };
}

/**
 * Whether a loopback connection gets the loopback trust of key-using methods (`eth_sign`,
 * `eth_sendTransaction`, `eth_signTransaction`). A request that carries an `Origin` was sent
 * by a web page, even when the origin is allowed: the page is not the operator, so it needs
 * the token like a remote caller.
 */
export function loopbackTrusted(peerLoopback: boolean, headers: GuardedHeaders): boolean {
  return peerLoopback && headers.origin === undefined;
}

/**
 * Answers a refused WebSocket upgrade on the raw socket, before any upgrade, and closes it.
 */
export function refuseUpgrade(socket: Duplex, refused: Refusal): void {
  const body = `${refused.message}\n`;
  socket.end(
    `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Wraps a `node:http` request listener: refused requests get 403, preflights (`OPTIONS`) are
 * answered here, and answers to browsers carry the CORS headers.
 */
export function guardedRequestListener(
  guard: ListenerGuard,
  next: (request: IncomingMessage, response: ServerResponse) => void,
): RequestListener {
  return (request, response) => {
    const refused = guard.checkRequest(request.headers);
    if (refused) {
      const body = `${refused.message}\n`;
      response
        .writeHead(refused.status, {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': Buffer.byteLength(body),
        })
        .end(body);
      return;
    }
    if (request.method === 'OPTIONS') {
      response.writeHead(204, guard.preflightHeaders(request.headers)).end();
      return;
    }
    const cors = guard.corsHeaders(request.headers);
    if (cors) for (const name in cors) response.setHeader(name, cors[name]);
    next(request, response);
  };
}

/**
 * The policy of one listener: the shared allowlists plus the host that listener is bound to.
 *
 * @example
 * ```ts
 * // Node's http: refusals, preflights and CORS headers handled before the handler runs.
 * const guard = new ListenerGuard(browserPolicy, address.host, 'GET, POST, OPTIONS');
 * const server = createServer(guardedRequestListener(guard, handler));
 * server.on('upgrade', (request, socket, head) => {
 *   const refused = guard.checkUpgrade(request.headers);
 *   if (refused) return refuseUpgrade(socket, refused);
 *   // ...upgrade
 * });
 * ```
 */
export class ListenerGuard {
  private readonly hosts: HostAllowlist;
  private readonly corsOrigins: OriginAllowlist;
  private readonly wsOrigins: OriginAllowlist;

  /**
   * @param boundHost the listener's host (`127.0.0.1`, `node.example`, `0.0.0.0`): clients that
   *   reach it by the name it was given are served without listing that name again.
   * @param methods the HTTP methods the listener serves, announced in preflight answers.
   */
  constructor(
    policy: BrowserPolicy,
    boundHost: string,
    private readonly methods: string,
  ) {
    this.hosts = HostAllowlist.parse(policy.vhosts).including(boundHost);
    this.corsOrigins = OriginAllowlist.parse(policy.corsOrigins);
    this.wsOrigins = OriginAllowlist.parse(policy.wsOrigins);
  }

  /** Checks an HTTP request (any method, preflights included); undefined when it may go on. */
  checkRequest(headers: GuardedHeaders): Refusal | undefined {
    if (!this.hosts.allows(headers.host)) return this.hostRefusal(headers.host as string);
    const { origin } = headers;
    if (origin !== undefined && !this.corsOrigins.allows(origin)) {
      return refusal(`origin ${origin} not allowed; add it with --json-rpc.cors`);
    }
    return undefined;
  }

  /** Checks a WebSocket upgrade request; undefined when it may be upgraded. */
  checkUpgrade(headers: GuardedHeaders): Refusal | undefined {
    if (!this.hosts.allows(headers.host)) return this.hostRefusal(headers.host as string);
    const { origin } = headers;
    if (origin !== undefined && !this.wsOrigins.allows(origin)) {
      return refusal(`origin ${origin} not allowed; add it with --json-rpc.ws-origins`);
    }
    return undefined;
  }

  /**
   * The CORS headers of an answer to a request {@link checkRequest} let through: the origin
   * echoed for a browser, nothing for a program.
   */
  corsHeaders(headers: GuardedHeaders): Record<string, string> | undefined {
    if (headers.origin === undefined) return undefined;
    return { 'Access-Control-Allow-Origin': headers.origin, Vary: 'Origin' };
  }

  /** The headers of the answer to a preflight (`OPTIONS`) that {@link checkRequest} let through. */
  preflightHeaders(headers: GuardedHeaders): Record<string, string> {
    const allow = { Allow: this.methods };
    if (headers.origin === undefined) return allow;
    return {
      ...allow,
      'Access-Control-Allow-Origin': headers.origin,
      'Access-Control-Allow-Methods': this.methods,
      'Access-Control-Allow-Headers': 'Content-Type, Authorization',
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_S,
      Vary: 'Origin',
    };
  }

  private hostRefusal(host: string): Refusal {
    return refusal(
      `invalid host specified: ${hostHeaderName(host)}; add it with --json-rpc.vhosts`,
    );
  }
}
