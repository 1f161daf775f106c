/**
 * Typed client of the daemon's REST interface (`/v1/api`). JSON requests go over keep-alive
 * node:http connections (cheap to load for a one-call CLI run); file transfers, streamed both
 * ways, over an undici pool loaded at the first transfer. The token, when given, goes in
 * `Authorization: Bearer` on every request; error bodies become `RestResponseError` with the
 * HTTP status and the daemon's message.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { Pool } from 'undici';
import { DEFAULT_REQUEST_TIMEOUT_MS, HttpTransport, type HttpAnswer } from './http-transport.js';
import type {
  ContractInstance,
  ContractSummary,
  NodeMeta,
  RestAbiEntry,
  RestErrorBody,
  SealedContent,
  SentTransaction,
  SignedContent,
} from '../shared/rest-api.js';
import type {
  ChunkDetail,
  ChunkListItem,
  ContentEncoding,
  FileDetail,
  FileListItem,
  StoragePage,
} from '../shared/storage-api.js';
import { RequestTimeoutError, RestResponseError } from './errors.js';
import { tlsTrust } from './tls-trust.js';

export interface RestClientOptions {
  token?: string;
  /** How long a JSON request may stay unanswered (default 30 s; 0 for no limit). */
  timeoutMs?: number;
}

/** Status and parsed body of one answer, whatever its status. */
export type RestAnswer = HttpAnswer;

function isErrorBody(body: unknown): body is RestErrorBody {
  const error = (body as RestErrorBody | undefined)?.error;
  return typeof error === 'object' && error !== null && typeof error.message === 'string';
}

/** The JSON value of `text`; the text itself when it is not JSON, undefined when empty. */
function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function failure(status: number, body: unknown): RestResponseError {
  const message = isErrorBody(body) ? body.error.message : `unexpected answer: ${String(body)}`;
  return new RestResponseError(status, message);
}

/** The query string of the defined entries of `params` ('' when none). */
function queryOf(params: Record<string, string | number | boolean | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** What an upload says about the file besides its bytes. */
export interface UploadOptions {
  /** The localPath to list it under. */
  name?: string;
  redundancy?: number;
  /** Unix seconds; 0 = never. */
  expires?: number;
  autorenew?: boolean;
  /** The byte count, sent as Content-Length (the daemon refuses an oversized one at once). */
  size?: number;
}

export interface PageOptions {
  limit?: number;
  cursor?: string;
}

export class RestClient {
  private readonly transport: HttpTransport;
  private readonly prefix: string;
  private readonly origin: string;
  private transfers: Promise<Pool> | undefined;

  /** @param baseUrl the `rest` endpoint of daemon.json, e.g. `http://127.0.0.1:1317/v1/api`. */
  constructor(
    readonly baseUrl: string,
    private readonly options: RestClientOptions = {},
  ) {
    const parsed = new URL(baseUrl);
    this.transport = new HttpTransport(parsed, {
      connections: 4,
      timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    });
    this.prefix = parsed.pathname.replace(/\/$/, '');
    this.origin = parsed.origin;
  }

  /** Sends a request and returns the answer as is (for any status). */
  async request(
    method: 'GET' | 'POST' | 'DELETE' | 'OPTIONS',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RestAnswer> {
    return this.transport.request({
      method,
      path: `${this.prefix}${path}`,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** The body of a 200 answer; rejects with `RestResponseError` otherwise. */
  private async ok<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const answer = await this.request(method, path, body);
    if (answer.status === 200) return answer.body as T;
    throw failure(answer.status, answer.body);
  }

  /** The `data` of a 200 answer; rejects with `RestResponseError` otherwise. */
  private async data<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T> {
    return (await this.ok<{ data: T }>(method, path, body)).data;
  }

  /**
   * The pool of streamed transfers, made (and undici loaded) at the first one. The request
   * timeout bounds each wait for a part of an answer's body, and a download's wait for its head;
   * not the whole transfer. An upload waits for its answer's head as long as undici does (300 s
   * from the last byte sent): its source may pause for as long as the node allows
   * (`--storage.upload-idle-timeout`, 60 s by default).
   */
  private transferPool(): Promise<Pool> {
    this.transfers ??= import('undici').then(
      ({ Pool: UndiciPool }) =>
        new UndiciPool(this.origin, {
          connections: 2,
          connect: { ...tlsTrust() },
          bodyTimeout: this.transferTimeoutMs(),
        }),
    );
    return this.transfers;
  }

  private transferTimeoutMs(): number {
    return this.options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** undici's timeouts as the client's own `RequestTimeoutError`; anything else as it is. */
  private transferError(error: unknown): unknown {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
      ? new RequestTimeoutError(this.baseUrl, this.transferTimeoutMs())
      : error;
  }

  /** Sends a transfer request, its timeouts reported as `RequestTimeoutError`. */
  private async transferRequest(
    options: Parameters<Pool['request']>[0],
  ): Promise<Awaited<ReturnType<Pool['request']>>> {
    try {
      return await (await this.transferPool()).request(options);
    } catch (error) {
      throw this.transferError(error);
    }
  }

  ping(): Promise<string> {
    return this.data('GET', '/status/ping');
  }

  meta(): Promise<NodeMeta> {
    return this.data('GET', '/status/meta');
  }

  /** Signs `data` with the node's identity key. */
  async sign(data: object): Promise<SignedContent> {
    return (await this.data<{ signed: SignedContent }>('POST', '/crypto/sign', { data })).signed;
  }

  /** Whether `signed` was signed by `owner` (an address). */
  async verify(owner: string, signed: SignedContent): Promise<boolean> {
    const path = `/crypto/verify/${encodeURIComponent(owner)}`;
    return (await this.data<{ verified: boolean }>('POST', path, { data: { signed } })).verified;
  }

  /** Encrypts `data` to the node's identity key. */
  async encrypt(data: object): Promise<SealedContent> {
    return (await this.data<{ signed: SealedContent }>('POST', '/crypto/encrypt', { data })).signed;
  }

  /** Decrypts a ciphertext made for the node's identity key; resolves to the JSON value. */
  async decrypt(
    sealed: Pick<SealedContent, 'ciphertext'> & Partial<SealedContent>,
  ): Promise<unknown> {
    return (await this.data<{ signed: unknown }>('POST', '/crypto/decrypt', { data: sealed }))
      .signed;
  }

  contracts(): Promise<ContractSummary[]> {
    return this.data('GET', '/contracts');
  }

  /** Registers `abi` under `name` at `address`. */
  addContract(name: string, address: string, abi: unknown[]): Promise<ContractInstance> {
    return this.data('POST', '/contracts', { name, address, abi });
  }

  /** The address and ABI of a contract, by name or address. */
  contract(contract: string): Promise<ContractInstance> {
    return this.data('GET', `/contracts/${encodeURIComponent(contract)}`);
  }

  async contractExists(address: string, abi: RestAbiEntry[] | RestAbiEntry[][]): Promise<boolean> {
    return (await this.data<{ exists: boolean }>('POST', '/contracts/exists', { address, abi }))
      .exists;
  }

  /** The decoded results of a call (`eth_call`) of `method`. */
  call(contract: string, method: string, params: unknown[]): Promise<unknown[]> {
    return this.data('POST', '/contracts/call', { contract, method, params });
  }

  /** Sends a transaction from the node identity to `method`; resolves once mined. */
  async send(
    contract: string,
    method: string,
    params: unknown[],
    amountInWei: string,
  ): Promise<SentTransaction> {
    const [sent] = await this.data<SentTransaction[]>('POST', '/contracts/send', {
      contract,
      method,
      params,
      amountInWei,
    });
    return sent;
  }

  /** The owner address of an identity handle. */
  async identityOwner(handle: string): Promise<string> {
    const path = `/identities/${encodeURIComponent(handle)}`;
    return (await this.data<{ address: string }>('GET', path)).address;
  }

  /** The identity handle of an owner address. */
  async ownerIdentity(owner: string): Promise<string> {
    const path = `/owners/${encodeURIComponent(owner)}/identity`;
    return (await this.data<{ identity: string }>('GET', path)).identity;
  }

  /** One page of the stored files. */
  files(page: PageOptions = {}): Promise<{ files: FileListItem[] } & StoragePage> {
    return this.ok('GET', `/storage/files${queryOf({ ...page })}`);
  }

  async file(id: string): Promise<FileDetail> {
    return (await this.ok<{ file: FileDetail }>('GET', `/storage/files/${encodeURIComponent(id)}`))
      .file;
  }

  /** A file's bytes as one string in `encoding` (files up to --storage.max-content-size). */
  async fileContent(id: string, encoding: ContentEncoding): Promise<string> {
    const path = `/storage/files/${encodeURIComponent(id)}/content${queryOf({ encoding })}`;
    return (await this.ok<{ data: string }>('GET', path)).data;
  }

  /** Streams a file's bytes (any size); `length` is its Content-Length. */
  async download(id: string): Promise<{ length: number; stream: Readable }> {
    const response = await this.transferRequest({
      method: 'GET',
      path: `${this.prefix}/storage/files/${encodeURIComponent(id)}/raw`,
      headers: this.options.token ? { authorization: `Bearer ${this.options.token}` } : {},
      headersTimeout: this.transferTimeoutMs(),
    });
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      throw failure(response.statusCode, parseJson(text));
    }
    const stream = new PassThrough();
    response.body.on('error', (error) => stream.destroy(this.transferError(error) as Error));
    response.body.pipe(stream);
    return { length: Number(response.headers['content-length']), stream };
  }

  /** Uploads `source` as a file, streamed; resolves once it is stored and listed. */
  async upload(source: Readable | Uint8Array, options: UploadOptions = {}): Promise<FileDetail> {
    const { size, ...params } = options;
    const response = await this.transferRequest({
      method: 'POST',
      path: `${this.prefix}/storage/files${queryOf(params)}`,
      headers: {
        'content-type': 'application/octet-stream',
        ...(size === undefined ? {} : { 'content-length': String(size) }),
        ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
      },
      body: source,
    });
    const text = await response.body.text().catch((error: unknown) => {
      throw this.transferError(error);
    });
    const body = parseJson(text);
    if (response.statusCode !== 200) throw failure(response.statusCode, body);
    return (body as { file: FileDetail }).file;
  }

  /** Removes a file (and the chunks no other file holds). */
  async removeFile(id: string): Promise<void> {
    await this.data('DELETE', `/storage/files/${encodeURIComponent(id)}`);
  }

  /** One page of the stored chunks. */
  chunks(page: PageOptions = {}): Promise<{ chunks: ChunkListItem[] } & StoragePage> {
    return this.ok('GET', `/storage/chunks${queryOf({ ...page })}`);
  }

  async chunk(id: string): Promise<ChunkDetail> {
    const path = `/storage/chunks/${encodeURIComponent(id)}`;
    return (await this.ok<{ chunk: { chunk: ChunkDetail } }>('GET', path)).chunk.chunk;
  }

  async close(): Promise<void> {
    await this.transport.close();
    await (await this.transfers)?.close();
  }
}
