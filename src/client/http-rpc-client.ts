/**
 * JSON-RPC over HTTP with a keep-alive connection pool (undici). The token, when given, is
 * sent as a bearer header on every call, which private methods need.
 */
import { Pool } from 'undici';
import { unwrapResponse, type JsonRpcResponse } from './json-rpc-envelope.js';

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the text when the body is not JSON, or undefined when empty. */
  body: unknown;
}

export interface HttpRpcClientOptions {
  token?: string;
  /** Keep-alive connections in the pool (default 8). */
  connections?: number;
}

export class HttpRpcClient {
  private readonly pool: Pool;
  private readonly path: string;
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly options: HttpRpcClientOptions = {},
  ) {
    const parsed = new URL(url);
    this.pool = new Pool(parsed.origin, { connections: options.connections ?? 8, pipelining: 1 });
    this.path = `${parsed.pathname}${parsed.search}`;
  }

  /** Calls one method; resolves to its result or rejects with `RpcResponseError`. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const response = await this.post(
      JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
    );
    if (typeof response.body !== 'object' || response.body === null) {
      throw new Error(
        `unexpected HTTP ${response.status} answer from ${this.url}: ${String(response.body)}`,
      );
    }
    return unwrapResponse<T>(response.body as JsonRpcResponse);
  }

  /** Sends a body as is (a batch, a malformed request) and returns the raw answer. */
  async post(
    body: string | Uint8Array,
    headers: Record<string, string> = {},
  ): Promise<RawHttpResponse> {
    const response = await this.pool.request({
      method: 'POST',
      path: this.path,
      headers: {
        'content-type': 'application/json',
        ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
        ...headers,
      },
      body,
    });
    const text = await response.body.text();
    let parsed: unknown = text.length === 0 ? undefined : text;
    try {
      if (text.length > 0) parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: response.statusCode, headers: response.headers, body: parsed };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
