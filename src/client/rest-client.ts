/**
 * Typed client of the daemon's REST interface (`/v1/api`) over keep-alive HTTP connections. The
 * token, when given, goes in `Authorization: Bearer` on every request; error bodies become
 * `RestResponseError` with the HTTP status and the daemon's message.
 */
import { HttpTransport, type HttpAnswer } from './http-transport.js';
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
import { RestResponseError } from './errors.js';

export interface RestClientOptions {
  token?: string;
}

/** Status and parsed body of one answer, whatever its status. */
export type RestAnswer = HttpAnswer;

function isErrorBody(body: unknown): body is RestErrorBody {
  const error = (body as RestErrorBody | undefined)?.error;
  return typeof error === 'object' && error !== null && typeof error.message === 'string';
}

export class RestClient {
  private readonly transport: HttpTransport;
  private readonly prefix: string;

  /** @param baseUrl the `rest` endpoint of daemon.json, e.g. `http://127.0.0.1:1317/v1/api`. */
  constructor(
    readonly baseUrl: string,
    private readonly options: RestClientOptions = {},
  ) {
    const parsed = new URL(baseUrl);
    this.transport = new HttpTransport(parsed, 4);
    this.prefix = parsed.pathname.replace(/\/$/, '');
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

  /** The `data` of a 200 answer; rejects with `RestResponseError` otherwise. */
  private async data<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const answer = await this.request(method, path, body);
    if (answer.status === 200) return (answer.body as { data: T }).data;
    const message = isErrorBody(answer.body)
      ? answer.body.error.message
      : `unexpected answer: ${String(answer.body)}`;
    throw new RestResponseError(answer.status, message);
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

  close(): Promise<void> {
    return this.transport.close();
  }
}
