/**
 * Host and Origin checks on every listener of a real daemon (DNS rebinding and cross-site
 * WebSocket): a web page's requests are refused unless its host or origin is configured, a
 * page never gets the loopback trust of key-using methods, and programs (no Origin header:
 * ethers, viem, curl) are served as before. Headers a browser would send are forged with
 * `node:http` and `ws`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { JsonRpcProvider, WebSocketProvider } from 'ethers';
import { createPublicClient, http as viemHttp } from 'viem';
import WebSocket from 'ws';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Foundry's cast, from the npm package `@foundry-rs/cast-linux-amd64`. */
const CAST = fileURLToPath(new URL('../../node_modules/.bin/cast', import.meta.url));

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const DEV = DEV_ADDRESSES[0].toLowerCase();
const SEND = { from: DEV, to: DEV, value: '0x1' };

/** One HTTP request with exactly the headers given (a forged `Host` included). */
function send(
  url: string,
  headers: Record<string, string>,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST',
): Promise<RawAnswer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method,
        headers: {
          ...(text === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
          ...headers,
        },
        agent: false,
      },
      (response) => {
        let received = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (received += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: received }),
        );
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

const rpc = (method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id: 1, method, params });

/** Opens a WebSocket with forged headers: resolves to the open socket, or the refusal's status and body. */
function openWs(
  url: string,
  options: { origin?: string; host?: string },
): Promise<{ socket: WebSocket } | { refused: RawAnswer }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      origin: options.origin,
      headers: options.host === undefined ? {} : { host: options.host },
    });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      let received = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (received += chunk));
      response.on('end', () =>
        resolve({
          refused: { status: response.statusCode ?? 0, headers: response.headers, body: received },
        }),
      );
    });
    socket.once('error', (error) => {
      if (!error.message.startsWith('Unexpected server response')) reject(error);
    });
  });
}

/** One JSON-RPC call over an open WebSocket. */
function wsCall(socket: WebSocket, method: string, params: unknown[] = []): Promise<unknown> {
  return new Promise((resolve) => {
    socket.once('message', (data) => resolve(JSON.parse(data.toString())));
    socket.send(JSON.stringify(rpc(method, params)));
  });
}

async function refusal(opening: ReturnType<typeof openWs>): Promise<RawAnswer> {
  const outcome = await opening;
  if ('socket' in outcome) {
    outcome.socket.close();
    throw new Error('the upgrade was accepted');
  }
  return outcome.refused;
}

async function opened(opening: ReturnType<typeof openWs>): Promise<WebSocket> {
  const outcome = await opening;
  if ('refused' in outcome)
    throw new Error(`refused: ${outcome.refused.status} ${outcome.refused.body}`);
  return outcome.socket;
}

const hostRefusal = (host: string) =>
  `invalid host specified: ${host}; add it with --json-rpc.vhosts\n`;

describe('Host and Origin checks', () => {
  let plain: TestDaemon;
  let configured: TestDaemon;
  const consensusHttp = (daemon: TestDaemon) =>
    (daemon.endpoints.consensusWs as string).replace(/^ws/, 'http').replace(/\/websocket$/, '');

  beforeAll(async () => {
    [plain, configured] = await Promise.all([
      startTestDaemon(),
      startTestDaemon([
        '--json-rpc.vhosts',
        'node.example',
        '--json-rpc.cors',
        'http://app.example',
        '--json-rpc.ws-origins',
        'http://app.example',
      ]),
    ]);
  });
  afterAll(() => Promise.all([plain?.stop(), configured?.stop()]));

  describe('by default', () => {
    it('refuses an unknown Host with 403 on the JSON-RPC and consensus HTTP listeners', async () => {
      const jsonRpc = await send(
        plain.endpoints.http,
        { host: 'evil.example:8545' },
        rpc('net_version'),
      );
      expect(jsonRpc.status).toBe(403);
      expect(jsonRpc.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(jsonRpc.body).toBe(hostRefusal('evil.example'));
      const consensus = await send(`${consensusHttp(plain)}/status`, {
        host: 'evil.example:26657',
      });
      expect(consensus.status).toBe(403);
      expect(consensus.body).toBe(hostRefusal('evil.example'));
      const allowed = await send(
        plain.endpoints.http,
        { host: 'localhost:8545' },
        rpc('net_version'),
      );
      expect(JSON.parse(allowed.body)).toMatchObject({ result: '9000' });
      expect((await send(`${consensusHttp(plain)}/health`, { host: 'LOCALHOST' })).status).toBe(
        200,
      );
    });

    it('gives a DNS-rebinding page 403 and sends no transaction', async () => {
      const nonce = () => plain.rpc.call('eth_getTransactionCount', [DEV, 'pending']);
      const before = await nonce();
      const page = { host: 'evil.example:8545', origin: 'http://evil.example:8545' };
      const answer = await send(plain.endpoints.http, page, rpc('eth_sendTransaction', [SEND]));
      expect(answer.status).toBe(403);
      expect(answer.body).toBe(hostRefusal('evil.example'));
      const noOrigin = await send(
        plain.endpoints.http,
        { host: 'evil.example' },
        rpc('eth_sendTransaction', [SEND]),
      );
      expect(noOrigin.status).toBe(403);
      expect(await nonce()).toBe(before);
      expect(await plain.rpc.call('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
    });

    it('refuses browser origins on HTTP, preflights included, with no CORS headers', async () => {
      const origin = { origin: 'http://evil.example' };
      const post = await send(plain.endpoints.http, origin, rpc('eth_sendTransaction', [SEND]));
      expect(post.status).toBe(403);
      expect(post.body).toBe(
        'origin http://evil.example not allowed; add it with --json-rpc.cors\n',
      );
      const preflight = await send(
        plain.endpoints.http,
        { ...origin, 'access-control-request-method': 'POST' },
        undefined,
        'OPTIONS',
      );
      expect(preflight.status).toBe(403);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      expect((await send(`${consensusHttp(plain)}/status`, origin)).status).toBe(403);
    });

    it('refuses a WebSocket upgrade from a browser origin or an unknown Host on both WebSocket listeners', async () => {
      for (const url of [plain.endpoints.ws, plain.endpoints.consensusWs as string]) {
        const origin = await refusal(openWs(url, { origin: 'http://evil.example' }));
        expect(origin.status).toBe(403);
        expect(origin.body).toBe(
          'origin http://evil.example not allowed; add it with --json-rpc.ws-origins\n',
        );
        const host = await refusal(openWs(url, { host: 'evil.example' }));
        expect(host.status).toBe(403);
        expect(host.body).toBe(hostRefusal('evil.example'));
      }
    });

    it('keeps serving programs that send no Origin: ethers, viem and plain ws', async () => {
      const provider = new JsonRpcProvider(plain.endpoints.http, undefined, {
        staticNetwork: true,
      });
      const wsProvider = new WebSocketProvider(plain.endpoints.ws);
      const viem = createPublicClient({ transport: viemHttp(plain.endpoints.http) });
      try {
        expect((await provider.getNetwork()).chainId).toBe(9000n);
        expect(typeof (await wsProvider.getBlockNumber())).toBe('number');
        expect(await viem.getChainId()).toBe(9000);
        const hash = await provider.send('eth_sendTransaction', [SEND]);
        expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
        const consensus = await opened(openWs(plain.endpoints.consensusWs as string, {}));
        consensus.close();
      } finally {
        provider.destroy();
        await wsProvider.destroy();
      }
    });
    it("keeps serving Foundry's cast, which sends no Origin either", async () => {
      const run = (...args: string[]) =>
        new Promise<string>((resolve, reject) =>
          execFile(CAST, [...args, '--rpc-url', plain.endpoints.http], (error, stdout, stderr) =>
            error ? reject(new Error(`cast ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim()),
          ),
        );
      expect(await run('chain-id')).toBe('9000');
      expect(Number(await run('block-number'))).toBeGreaterThanOrEqual(0);
      expect(BigInt(await run('balance', SEND.from))).toBeGreaterThan(0n);
      const hash = JSON.parse(await run('rpc', 'eth_sendTransaction', JSON.stringify(SEND)));
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    });
  });

  describe('with --json-rpc.vhosts, --json-rpc.cors and --json-rpc.ws-origins', () => {
    it('serves the configured Host on both HTTP listeners and still refuses others', async () => {
      const jsonRpc = await send(
        configured.endpoints.http,
        { host: 'node.example:8545' },
        rpc('net_version'),
      );
      expect(JSON.parse(jsonRpc.body)).toMatchObject({ result: '9000' });
      expect(
        (await send(`${consensusHttp(configured)}/health`, { host: 'node.example' })).status,
      ).toBe(200);
      expect(
        (await send(configured.endpoints.http, { host: 'evil.example' }, rpc('net_version')))
          .status,
      ).toBe(403);
      for (const url of [configured.endpoints.ws, configured.endpoints.consensusWs as string]) {
        const ws = await opened(openWs(url, { host: 'node.example:8546' }));
        ws.close();
      }
    });

    it('answers preflights and requests of an allowed origin with CORS headers', async () => {
      const origin = { origin: 'http://app.example' };
      const preflight = await send(
        configured.endpoints.http,
        { ...origin, 'access-control-request-method': 'POST' },
        undefined,
        'OPTIONS',
      );
      expect(preflight.status).toBe(204);
      expect(preflight.headers).toMatchObject({
        'access-control-allow-origin': 'http://app.example',
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': 'Content-Type, Authorization',
        vary: 'Origin',
      });
      const call = await send(configured.endpoints.http, origin, rpc('net_version'));
      expect(call.headers['access-control-allow-origin']).toBe('http://app.example');
      expect(JSON.parse(call.body)).toMatchObject({ result: '9000' });
      const consensus = await send(`${consensusHttp(configured)}/health`, origin);
      expect(consensus.status).toBe(200);
      expect(consensus.headers['access-control-allow-origin']).toBe('http://app.example');
    });

    it('makes an allowed page use the token for key-using methods over HTTP', async () => {
      const origin = { origin: 'http://app.example' };
      const anonymous = await send(
        configured.endpoints.http,
        origin,
        rpc('eth_sendTransaction', [SEND]),
      );
      expect(JSON.parse(anonymous.body).error).toEqual({
        code: -32001,
        message: 'unauthorized: eth_sendTransaction requires authentication',
      });
      const authorized = await send(
        configured.endpoints.http,
        { ...origin, authorization: `Bearer ${configured.token}` },
        rpc('eth_sign', [DEV, '0x68656c6c6f']),
      );
      expect(JSON.parse(authorized.body).result).toMatch(/^0x[0-9a-f]{130}$/);
    });

    it('opens WebSockets for an allowed origin, which still need the token to send', async () => {
      const consensus = await opened(
        openWs(configured.endpoints.consensusWs as string, { origin: 'http://app.example' }),
      );
      consensus.close();
      const page = await opened(openWs(configured.endpoints.ws, { origin: 'http://app.example' }));
      const withToken = await opened(
        openWs(`${configured.endpoints.ws}/?token=${configured.token}`, {
          origin: 'http://app.example',
        }),
      );
      try {
        expect(await wsCall(page, 'eth_sendTransaction', [SEND])).toMatchObject({
          error: {
            code: -32001,
            message: 'unauthorized: eth_sendTransaction requires authentication',
          },
        });
        expect(await wsCall(withToken, 'eth_sendTransaction', [SEND])).toMatchObject({
          result: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        });
      } finally {
        page.close();
        withToken.close();
      }
      const other = await refusal(
        openWs(configured.endpoints.ws, { origin: 'http://evil.example' }),
      );
      expect(other.status).toBe(403);
    });
  });
});
