/**
 * The REST interface (/v1/api) of a real daemon through real HTTP and WebSocket: for every
 * route the exact body of a success, a 400 that names the field, a 401 without the token
 * (ping excepted); signatures that ethers checks; ciphertexts eciesjs makes; the OpenAPI
 * document through a real OpenAPI 3 validator; the Host/Origin guard; the body limit.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Validator } from '@seriousme/openapi-schema-validator';
import canonicalize from 'canonicalize';
import { encrypt as eciesEncrypt } from 'eciesjs';
import { SigningKey, Wallet, verifyMessage } from 'ethers';
import WebSocket from 'ws';
import { RestClient } from '../../src/client/rest-client.js';
import type { NodeBlockEvent, SignedContent } from '../../src/shared/rest-api.js';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { daemonLogText } from '../helpers/daemon-log.js';
import { RawConnection } from '../helpers/raw-http.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const MAX_BODY = 64 * 1024;
const APP_ORIGIN = 'https://app.example';
const EXPENSIVE_RATE = 8;
const OTHER_OWNER = DEV_ADDRESSES[1].toLowerCase();

let daemon: TestDaemon;
let rest: RestClient;
let anonymous: RestClient;
let nodeKey: SigningKey;
let nodeAddress: string;

beforeAll(async () => {
  daemon = await startTestDaemon([
    '--rest.max-body-size',
    `${MAX_BODY}B`,
    '--block-time',
    '200ms',
    '--json-rpc.cors',
    APP_ORIGIN,
    '--rest.expensive-rate',
    String(EXPENSIVE_RATE),
  ]);
  rest = new RestClient(daemon.endpoints.rest as string, { token: daemon.token });
  anonymous = new RestClient(daemon.endpoints.rest as string);
  const record = JSON.parse(readFileSync(join(daemon.dataDir, 'node_key.json'), 'utf8')) as {
    privateKey: string;
  };
  nodeKey = new SigningKey(`0x${record.privateKey}`);
  nodeAddress = new Wallet(nodeKey).address.toLowerCase();
});

afterAll(async () => {
  await Promise.all([rest?.close(), anonymous?.close()]);
  await daemon?.stop();
});

/** The next `count` messages of `socket`; rejects after 20 s or on an error or close. */
function nextMessages(socket: WebSocket, count: number): Promise<NodeBlockEvent[]> {
  return new Promise((resolve, reject) => {
    const received: NodeBlockEvent[] = [];
    const timer = setTimeout(
      () => reject(new Error(`${received.length} of ${count} messages`)),
      20_000,
    );
    socket.on('message', (text) => {
      received.push(JSON.parse(String(text)) as NodeBlockEvent);
      if (received.length === count) {
        clearTimeout(timer);
        resolve(received);
      }
    });
    socket.once('error', reject);
    socket.once('close', (code, reason) => reject(new Error(`closed ${code} ${String(reason)}`)));
  });
}

/** Posts a body as written (JSON that JSON.stringify could not produce). */
async function rawPost(path: string, text: string | Buffer, headers: Record<string, string> = {}) {
  const response = await fetch(`${daemon.endpoints.rest}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${daemon.token}`,
      ...headers,
    },
    body: text,
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const post = (client: RestClient, path: string, body: unknown) =>
  client.request('POST', path, body);

function expectError(answer: { status: number; body: unknown }, status: number, text: RegExp) {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ error: { code: status, message: expect.stringMatching(text) } });
}

describe('status', () => {
  it('ping answers {data: "pong"} without a token', async () => {
    const answer = await anonymous.request('GET', '/status/ping');
    expect(answer).toMatchObject({ status: 200, body: { data: 'pong' } });
  });

  it('meta answers every field of the node metadata, routes from the live router', async () => {
    const answer = await rest.request('GET', '/status/meta');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        nodeJsVersion: process.version,
        fileCount: 0,
        peersCount: 0,
        serviceNetworkNodeVersion: expect.stringMatching(
          /^service\/v\d+\.\d+\.\d+\/[a-z0-9]+-[a-z0-9]+\/node-v\d+\.\d+\.\d+$/,
        ),
        apiRoutes: expect.any(Array),
        wsRoutes: [['GET => /v1/api/ws/node (nodeEvents)']],
      },
    });
    const routes = (answer.body as { data: { apiRoutes: string[][] } }).data.apiRoutes.flat();
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET => /v1/api/status/ping (ping)',
        'GET => /v1/api/status/meta (meta)',
        'POST => /v1/api/crypto/sign (sign)',
        'POST => /v1/api/crypto/verify/:owner (verify)',
        'POST => /v1/api/crypto/encrypt (encrypt)',
        'POST => /v1/api/crypto/decrypt (decrypt)',
        'GET => /v1/api/openapi.json (openapi)',
      ]),
    );
  });

  it('meta needs the token: 401 with no detail', async () => {
    expectError(await anonymous.request('GET', '/status/meta'), 401, /^unauthorized: GET/);
    const wrong = new RestClient(daemon.endpoints.rest as string, { token: 'f'.repeat(64) });
    expectError(await wrong.request('GET', '/status/meta'), 401, /requires authentication$/);
    await wrong.close();
  });

  it('unknown routes answer 404 in the error shape', async () => {
    expectError(await rest.request('GET', '/status/nothing'), 404, /no route GET/);
  });

  it('a route asked with another method answers 405 listing the methods it has', async () => {
    const id = '0'.repeat(64);
    const put = await fetch(`${daemon.endpoints.rest}/storage/files/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${daemon.token}` },
    });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, DELETE');
    expect(await put.json()).toEqual({
      error: {
        code: 405,
        message: `method PUT not allowed on /v1/api/storage/files/${id}: use GET or DELETE`,
      },
    });
    expectError(
      await rest.request('POST', '/status/ping'),
      405,
      /^method POST not allowed on \/v1\/api\/status\/ping: use GET$/,
    );
  });
});

describe('crypto/sign and crypto/verify', () => {
  const payload = { name: 'report', items: [1, 2, { b: true, a: 'x' }], amount: 1.5 };
  let signed: SignedContent;

  beforeAll(async () => {
    signed = await rest.sign(payload);
  });

  it('signs the canonical JSON of data with the node key (EIP-191)', async () => {
    const answer = await post(rest, '/crypto/sign', { data: payload });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        signed: {
          data: payload,
          signer: nodeAddress,
          signature: expect.stringMatching(/^0x[0-9a-f]{130}$/),
          algorithm: 'eip191-secp256k1-rfc8785',
        },
      },
    });
    expect(verifyMessage(canonicalize(payload) as string, signed.signature).toLowerCase()).toBe(
      nodeAddress,
    );
  });

  it('verify: true for the node address, also for a reordered but equal object', async () => {
    const answer = await post(rest, `/crypto/verify/${nodeAddress}`, { data: { signed } });
    expect(answer).toMatchObject({ status: 200, body: { data: { verified: true } } });
    const reordered = { amount: 1.5, items: [1, 2, { a: 'x', b: true }], name: 'report' };
    expect(await rest.verify(nodeAddress, { ...signed, data: reordered })).toBe(true);
    expect(await rest.verify(new Wallet(nodeKey).address, signed)).toBe(true);
  });

  it('verify: false for a tampered payload, another owner or a false signer', async () => {
    expect(await rest.verify(nodeAddress, { ...signed, data: { ...payload, amount: 2 } })).toBe(
      false,
    );
    expect(await rest.verify(OTHER_OWNER, signed)).toBe(false);
    expect(await rest.verify(nodeAddress, { ...signed, signer: OTHER_OWNER })).toBe(false);
  });

  it('400 names the field', async () => {
    expectError(
      await post(rest, '/crypto/sign', { data: 'text' }),
      400,
      /^body\/data must be object/,
    );
    expectError(await post(rest, '/crypto/sign', {}), 400, /required property 'data'/);
    const infinite = await rawPost('/crypto/sign', '{"data":{"amount":1e400}}');
    expectError(infinite, 400, /^request body: the number at "amount" is beyond/);
    const compressed = await rawPost('/crypto/sign', gzipSync('{"data":{}}'), {
      'content-encoding': 'gzip',
    });
    expectError(compressed, 400, /^Content-Encoding gzip: send the JSON body as it is/);
    expectError(
      await post(rest, '/crypto/verify/0x1234', { data: { signed } }),
      400,
      /^params\/owner must match pattern/,
    );
    expectError(
      await post(rest, `/crypto/verify/${nodeAddress}`, { data: { signed: { data: {} } } }),
      400,
      /^body\/data\/signed must have required property 'signature'/,
    );
    expectError(
      await post(rest, `/crypto/verify/${nodeAddress}`, {
        data: { signed: { ...signed, signature: '0x1234' } },
      }),
      400,
      /signature must be 65 bytes/,
    );
    expectError(
      await post(rest, `/crypto/verify/${nodeAddress}`, {
        data: { signed: { ...signed, algorithm: 'rsa' } },
      }),
      400,
      /^body\/data\/signed\/algorithm must be equal to one of the allowed values/,
    );
  });

  it('401 without the token', async () => {
    expectError(await post(anonymous, '/crypto/sign', { data: payload }), 401, /unauthorized/);
    expectError(
      await post(anonymous, `/crypto/verify/${nodeAddress}`, { data: { signed } }),
      401,
      /unauthorized/,
    );
  });
});

describe('crypto/encrypt and crypto/decrypt', () => {
  const secret = { note: 'for the node only', n: 42 };

  it('encrypt answers an eciesjs ciphertext to the node key; decrypt round-trips', async () => {
    const answer = await post(rest, '/crypto/encrypt', { data: secret });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        signed: {
          ciphertext: expect.stringMatching(/^0x04[0-9a-f]+$/),
          publicKey: nodeKey.compressedPublicKey,
          algorithm: 'ecies-secp256k1-hkdf-sha256-aes-256-gcm',
        },
      },
    });
    const sealed = (answer.body as { data: { signed: { ciphertext: string } } }).data.signed;
    const opened = await post(rest, '/crypto/decrypt', { data: sealed });
    expect(opened).toMatchObject({ status: 200, body: { data: { signed: secret } } });
  });

  it('decrypts what the eciesjs package encrypted to the node public key', async () => {
    const ciphertext = eciesEncrypt(
      nodeKey.publicKey.slice(2),
      Buffer.from(JSON.stringify({ from: 'eciesjs', list: [1, 2] })),
    );
    const hex = `0x${Buffer.from(ciphertext).toString('hex')}`;
    expect(await rest.decrypt({ ciphertext: hex })).toEqual({ from: 'eciesjs', list: [1, 2] });
  });

  it('a sealed record holding a number JavaScript cannot hold exactly is refused, not rounded', async () => {
    const seal = (text: string) =>
      `0x${Buffer.from(eciesEncrypt(nodeKey.publicKey.slice(2), Buffer.from(text))).toString('hex')}`;
    for (const text of ['{"amount":1e400}', '{"amount":1000000000000000001}']) {
      expectError(
        await post(rest, '/crypto/decrypt', { data: { ciphertext: seal(text) } }),
        400,
        /^the record data\.ciphertext seals: the number at "amount" is beyond/,
      );
    }
    expectError(
      await post(rest, '/crypto/decrypt', { data: { ciphertext: seal('not json') } }),
      400,
      /^the record data\.ciphertext seals is not valid JSON/,
    );
  });

  it('a ciphertext with one flipped bit is refused with 400', async () => {
    const { ciphertext } = await rest.encrypt(secret);
    const bytes = Buffer.from(ciphertext.slice(2), 'hex');
    bytes[bytes.length - 3] ^= 0x01;
    expectError(
      await post(rest, '/crypto/decrypt', { data: { ciphertext: `0x${bytes.toString('hex')}` } }),
      400,
      /^data\.ciphertext cannot be decrypted/,
    );
  });

  it('400 names the field, 401 without the token', async () => {
    expectError(
      await post(rest, '/crypto/encrypt', { data: [1] }),
      400,
      /^body\/data must be object/,
    );
    expectError(
      await post(rest, '/crypto/decrypt', { data: { ciphertext: 'zz' } }),
      400,
      /^body\/data\/ciphertext must match pattern/,
    );
    expectError(await post(anonymous, '/crypto/encrypt', { data: secret }), 401, /unauthorized/);
    expectError(
      await post(anonymous, '/crypto/decrypt', { data: { ciphertext: '0x00' } }),
      401,
      /unauthorized/,
    );
  });
});

describe('openapi.json', () => {
  it('is a valid OpenAPI 3 document (1.0.0) listing every live route', async () => {
    const answer = await rest.request('GET', '/openapi.json');
    expect(answer.status).toBe(200);
    const document = answer.body as {
      info: { version: string };
      paths: Record<
        string,
        Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>
      >;
    };
    const result = await new Validator().validate(document as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.info.version).toBe('1.0.0');

    const meta = await rest.meta();
    const live = [...meta.apiRoutes.flat(), ...meta.wsRoutes.flat()];
    expect(live.length).toBeGreaterThanOrEqual(8);
    for (const line of live) {
      const [, method, path] = /^(\w+) => (\S+) \(\w+\)$/.exec(line) as RegExpExecArray;
      const openapiPath = path.replace(/:(\w+)/g, '{$1}');
      expect(document.paths[openapiPath]?.[method.toLowerCase()]).toBeDefined();
    }
    expect(Object.keys(document.paths['/v1/api/crypto/sign'].post.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '408',
      '413',
      '500',
    ]);
    expect(document.paths['/v1/api/crypto/decrypt'].post.responses).toHaveProperty('429');
    expect(document.paths['/v1/api/storage/files/{id}/content'].get.responses).toHaveProperty(
      '413',
    );
    expect(document.paths['/v1/api/storage/files'].post.requestBody).toEqual({
      required: true,
      description: 'The bytes, streamed.',
      content: {
        'application/octet-stream': {
          schema: { type: 'string', format: 'binary', description: 'The bytes, streamed.' },
        },
      },
    });
  });

  it('needs the token', async () => {
    expectError(await anonymous.request('GET', '/openapi.json'), 401, /unauthorized/);
  });
});

describe('ws/node', () => {
  const wsUrl = () => `${(daemon.endpoints.rest as string).replace(/^http/, 'ws')}/ws/node`;

  /** Status of a refused upgrade. */
  function refusedStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.once('open', () => reject(new Error('the upgrade was accepted')));
      socket.once('error', () => undefined);
    });
  }

  it('streams every new block as {type: "block", data: {number, hash, txCount, timestamp}}', async () => {
    const socket = new WebSocket(`${wsUrl()}?token=${daemon.token}`);
    const events = await nextMessages(socket, 2);
    socket.close();
    for (const event of events) {
      expect(event).toEqual({
        type: 'block',
        data: {
          number: expect.any(Number),
          hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
          txCount: 0,
          timestamp: expect.any(Number),
        },
      });
    }
    expect(events[1].data.number).toBe(events[0].data.number + 1);
    const block = await daemon.rpc.call<{ hash: string }>('eth_getBlockByNumber', [
      `0x${events[0].data.number.toString(16)}`,
      false,
    ]);
    expect(block.hash).toBe(events[0].data.hash);
  });

  it('accepts the token in the Authorization header; refuses 401 without it', async () => {
    const socket = new WebSocket(wsUrl(), { headers: { authorization: `Bearer ${daemon.token}` } });
    await nextMessages(socket, 1);
    socket.close();
    expect(await refusedStatus(wsUrl())).toBe(401);
    expect(await refusedStatus(`${wsUrl()}?token=${'0'.repeat(64)}`)).toBe(401);
  });

  it('refuses an upgrade to a route that is not a WebSocket with 400, without switching', async () => {
    const rest = (daemon.endpoints.rest as string).replace(/^http/, 'ws');
    expect(await refusedStatus(`${rest}/status/meta?token=${daemon.token}`)).toBe(400);
    expect(await refusedStatus(`${rest}/status/ping`)).toBe(400);
    expect(await refusedStatus(`${rest}/nowhere?token=${daemon.token}`)).toBe(404);
  });

  it('answers a handshake the ws package refuses in the interface error shape', async () => {
    const answerTo = async (headers: string) => {
      const connection = await RawConnection.open(daemon.endpoints.rest as string);
      try {
        connection.write(
          `GET /v1/api/ws/node HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${daemon.token}\r\n` +
            `Upgrade: websocket\r\nConnection: Upgrade\r\n${headers}\r\n`,
        );
        const [answer] = await connection.responses(1);
        return {
          status: answer.status,
          headers: answer.headers,
          body: JSON.parse(answer.body) as unknown,
        };
      } finally {
        connection.end();
      }
    };
    expectError(
      await answerTo('Sec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n'),
      400,
      /^WebSocket handshake refused: Missing or invalid Sec-WebSocket-Key header$/,
    );
    const version = await answerTo(
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 99\r\n',
    );
    expectError(version, 400, /Sec-WebSocket-Version/);
    expect(version.headers).toMatch(/sec-websocket-version: 13, 8/i);
  });

  it('refuses a browser origin not in --json-rpc.ws-origins with 403', async () => {
    expect(
      await refusedStatus(`${wsUrl()}?token=${daemon.token}`, { origin: 'https://evil.example' }),
    ).toBe(403);
  });
});

describe('the listener', () => {
  it('answers preflights and CORS headers for an origin in --json-rpc.cors', async () => {
    const preflight = await rest.request('OPTIONS', '/crypto/sign', undefined, {
      origin: APP_ORIGIN,
      'access-control-request-method': 'POST',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': APP_ORIGIN,
      'access-control-allow-headers': 'Content-Type, Authorization',
    });
    const answer = await rest.request('GET', '/status/meta', undefined, { origin: APP_ORIGIN });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('refuses a body over --rest.max-body-size with 413 naming the flag', async () => {
    const big = { data: { blob: 'x'.repeat(MAX_BODY) } };
    expectError(await post(rest, '/crypto/sign', big), 413, /--rest\.max-body-size/);
  });

  it('refuses malformed JSON with 400', async () => {
    const answer = await rest.request('POST', '/crypto/sign', undefined, {
      'content-type': 'application/json',
    });
    expect(answer.status).toBe(400);
  });

  it('refuses a body of another type than the route takes, naming the type', async () => {
    const send = async (path: string, type: string | undefined, body: string) => {
      const response = await fetch(`${daemon.endpoints.rest}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${daemon.token}`,
          ...(type === undefined ? {} : { 'content-type': type }),
        },
        body: type === undefined ? new Blob([body]) : body,
      });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    const json = /^request body must be application\/json \(Content-Type\)$/;
    expectError(await send('/crypto/sign', 'text/plain', '{"data":{}}'), 400, json);
    expectError(await send('/crypto/sign', 'application/octet-stream', '{"data":{}}'), 400, json);
    expectError(await send('/crypto/sign', undefined, '{"data":{}}'), 400, json);
    expectError(
      await send('/storage/files', 'application/json', '{"bytes":"x"}'),
      400,
      /^request body must be application\/octet-stream \(Content-Type\)$/,
    );
  });

  it('answers a request the HTTP parser refuses in the interface error shape', async () => {
    const answerTo = async (head: string) => {
      const connection = await RawConnection.open(daemon.endpoints.rest as string);
      try {
        connection.write(head);
        const [answer] = await connection.responses(1);
        return { status: answer.status, body: JSON.parse(answer.body) as unknown };
      } finally {
        connection.end();
      }
    };
    expectError(
      await answerTo(
        'POST /v1/api/crypto/sign HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n',
      ),
      400,
      /^malformed HTTP request \(HPE_/,
    );
    expectError(
      await answerTo(
        `GET /v1/api/status/ping?${'x'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      ),
      431,
      /^request head too large/,
    );
  });

  it('answers a path the router refuses (a bad %-escape, a long parameter) in the interface error shape', async () => {
    const get = async (path: string) => {
      const response = await fetch(`${daemon.endpoints.rest}${path}`, {
        headers: { authorization: `Bearer ${daemon.token}` },
      });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    expectError(
      await get('/contracts/%ZZ'),
      400,
      /^malformed path \/v1\/api\/contracts\/%ZZ: a %-escape that does not decode as UTF-8$/,
    );
    expectError(await get('/identities/%ED%A0%80'), 400, /^malformed path /);
    // Within the schema's 128 characters but over fastify's default 100 for a parameter.
    expectError(await get(`/contracts/A${'b'.repeat(119)}`), 404, /^contract Ab+ not found$/);
    expectError(
      await get(`/contracts/A${'b'.repeat(200)}`),
      400,
      /^params\/contract must NOT have more than 128 characters$/,
    );
    expectError(
      await get(`/storage/files/${'a'.repeat(2000)}`),
      400,
      /^path parameter longer than 1024 characters in \/v1\/api\/storage\/files\/a+$/,
    );
    // Set as fastify 5 wants it: a deprecated top-level option is a warning in the log.
    expect(daemonLogText(daemon.dataDir)).not.toMatch(/FastifyWarning|FSTDEP/);
  });

  it('refuses a forged Host and an unlisted browser Origin with 403, serves allowed ones', async () => {
    expectError(
      await rest.request('GET', '/status/ping', undefined, { host: 'attacker.example' }),
      403,
      /--json-rpc\.vhosts/,
    );
    expectError(
      await rest.request('GET', '/status/ping', undefined, { origin: 'https://evil.example' }),
      403,
      /--json-rpc\.cors/,
    );
  });

  it('answers 429 naming --rest.expensive-rate past the rate of expensive operations', async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 * EXPENSIVE_RATE }, () =>
        post(rest, '/crypto/encrypt', { data: { n: 1 } }),
      ),
    );
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expectError(refused[0], 429, /more than 8 per second \(set by --rest\.expensive-rate\)$/);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
  });
});
