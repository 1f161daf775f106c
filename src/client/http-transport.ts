/**
 * Requests over keep-alive HTTP(S) connections to one origin, with node:http. The CLI makes one
 * or two calls per run, and undici's module graph cost more to load than such a call takes, so
 * the clients of the daemon use the built-in module instead.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { NodeUnreachableError, RequestTimeoutError, UntrustedCertificateError } from './errors.js';
import { tlsTrust } from './tls-trust.js';

/** Status, headers and parsed body of one answer, whatever its status. */
export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or the text when the body is not JSON, or undefined when empty. */
  body: unknown;
}

export interface HttpRequest {
  method: string;
  /** Path below the origin, with its query. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Overrides the transport's timeout, for a call known to take long (a profile). */
  timeoutMs?: number;
}

/** What one request may stay silent by default: long for a call, short of forever. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface HttpTransportOptions {
  /** Most sockets open at once (kept alive between requests). */
  connections: number;
  /**
   * How long the connection may stay silent, while connecting, waiting for the answer or
   * between parts of its body, before the request fails with `RequestTimeoutError`; 0 for no
   * limit. A stopped node accepts connections and never answers.
   */
  timeoutMs: number;
}

/** Socket errors that mean nothing answers at the address. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Certificate checks of a TLS connection that failed: the node is there, but not trusted. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The error to report for a connection to `url` that failed with `error`. */
export function connectionFailure(url: string, error: Error & { code?: string }): Error {
  if (UNREACHABLE.has(error.code ?? '')) return new NodeUnreachableError(url, error);
  if (UNTRUSTED.has(error.code ?? '')) return new UntrustedCertificateError(url, error);
  return error;
}

function parseBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export class HttpTransport {
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private readonly timeoutMs: number;

  constructor(
    private readonly origin: URL,
    { connections, timeoutMs }: HttpTransportOptions,
  ) {
    this.timeoutMs = timeoutMs;
    const secure = origin.protocol === 'https:';
    if (!secure && origin.protocol !== 'http:') {
      throw new TypeError(`unsupported URL ${origin.href}: expected http:// or https://`);
    }
    // node:https (and TLS with it) is loaded only for an https:// node: a local call skips it.
    const https = secure ? process.getBuiltinModule('node:https') : undefined;
    this.agent = https
      ? new https.Agent({ keepAlive: true, maxSockets: connections, ...tlsTrust() })
      : new HttpAgent({ keepAlive: true, maxSockets: connections });
    this.send = https?.request ?? httpRequest;
  }

  request(request: HttpRequest): Promise<HttpAnswer> {
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    return new Promise((resolve, reject) => {
      const outgoing = this.send(
        {
          protocol: this.origin.protocol,
          // URL keeps the brackets of an IPv6 literal; http.request wants the bare address.
          hostname: this.origin.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: this.origin.port,
          method: request.method,
          path: request.path,
          // A declared length, not chunked encoding, which some servers refuse.
          headers:
            request.body === undefined
              ? request.headers
              : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          agent: this.agent,
          // Idle time, connecting included; the agent clears it when the socket goes back to it.
          ...(timeoutMs > 0 ? { timeout: timeoutMs } : {}),
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: parseBody(Buffer.concat(chunks).toString('utf8')),
            }),
          );
        },
      );
      outgoing.on('error', (error) => reject(connectionFailure(this.origin.origin, error)));
      outgoing.on('timeout', () => {
        // The first settlement wins: the destroy's own error events come after it.
        reject(new RequestTimeoutError(this.origin.href, timeoutMs));
        outgoing.destroy();
      });
      outgoing.end(request.body);
    });
  }

  /** Closes every connection; call it once no request is in flight. */
  async close(): Promise<void> {
    this.agent.destroy();
  }
}
