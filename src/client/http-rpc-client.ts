/**
 * JSON-RPC over HTTP(S) with keep-alive connections. The token, when given, is sent as a bearer
 * header on every call, which private methods need.
 */
import { DEFAULT_REQUEST_TIMEOUT_MS, HttpTransport, type HttpAnswer } from './http-transport.js';
import { unwrapResponse, type JsonRpcResponse } from './json-rpc-envelope.js';

export type RawHttpResponse = HttpAnswer;

export interface HttpRpcClientOptions {
  token?: string;
  /** Keep-alive connections in the pool (default 8). */
  connections?: number;
  /** How long a call may stay unanswered (default 30 s; 0 for no limit). */
  timeoutMs?: number;
}

export interface CallOptions {
  /** This call's timeout instead of the client's, for a method known to take long. */
  timeoutMs?: number;
}

export class HttpRpcClient {
  private readonly transport: HttpTransport;
  private readonly path: string;
  private nextId = 1;
  /** How long a call may stay unanswered; 0 for no limit. */
  readonly timeoutMs: number;

  constructor(
    readonly url: string,
    private readonly options: HttpRpcClientOptions = {},
  ) {
    const parsed = new URL(url);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.transport = new HttpTransport(parsed, {
      connections: options.connections ?? 8,
      timeoutMs: this.timeoutMs,
    });
    this.path = `${parsed.pathname}${parsed.search}`;
  }

  /** Calls one method; resolves to its result or rejects with `RpcResponseError`. */
  async call<T = unknown>(
    method: string,
    params: unknown[] = [],
    options: CallOptions = {},
  ): Promise<T> {
    const response = await this.post(
      JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
      {},
      options,
    );
    if (typeof response.body !== 'object' || response.body === null) {
      const body =
        response.body === undefined ? 'with an empty body' : `: ${String(response.body)}`;
      throw new Error(`unexpected HTTP ${response.status} answer from ${this.url} ${body}`);
    }
    return unwrapResponse<T>(response.body as JsonRpcResponse);
  }

  /** Sends a body as is (a batch, a malformed request) and returns the raw answer. */
  async post(
    body: string | Uint8Array,
    headers: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<RawHttpResponse> {
    return this.transport.request({
      timeoutMs: options.timeoutMs,
      method: 'POST',
      path: this.path,
      headers: {
        'content-type': 'application/json',
        ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
        ...headers,
      },
      body,
    });
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
