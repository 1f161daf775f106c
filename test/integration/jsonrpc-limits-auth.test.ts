import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { WsRpcClient } from '../../src/client/ws-rpc-client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const call = (id: number, method: string, params: unknown[] = []) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

describe('JSON-RPC limits, authentication and CORS', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--json-rpc.max-body-size',
      '2KiB',
      '--json-rpc.batch-request-limit',
      '5',
      '--json-rpc.batch-response-max-size',
      '400',
      '--json-rpc.ws-max-message-size',
      '4KiB',
      '--json-rpc.cors',
      'https://app.example',
      '--json-rpc.gas-cap',
      '100000',
    ]);
  });
  afterAll(() => daemon?.stop());

  it('answers an over-limit body with 413 naming the limit, and keeps serving', async () => {
    const body = JSON.stringify(call(1, 'web3_sha3', [`0x${'ab'.repeat(2048)}`]));
    const response = await daemon.rpc.post(body);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32005,
        message: 'request body too large: the limit is 2048 bytes (--json-rpc.max-body-size)',
      },
    });
    expect(await daemon.rpc.call('net_version')).toBe('9000');
  });

  it('refuses a batch over the call limit as a whole', async () => {
    const batch = [1, 2, 3, 4, 5, 6].map((id) => call(id, 'net_version'));
    const response = await daemon.rpc.post(JSON.stringify(batch));
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32005,
        message: 'batch too large: 6 calls exceed the limit of 5 (--json-rpc.batch-request-limit)',
      },
    });
  });

  it('answers calls past the batch response size with a limit error each', async () => {
    const batch = [1, 2, 3, 4, 5].map((id) => call(id, 'web3_sha3', ['0x']));
    const response = await daemon.rpc.post(JSON.stringify(batch));
    const answers = response.body as Array<{
      id: number;
      result?: string;
      error?: { code: number; message: string };
    }>;
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3, 4, 5]);
    expect(answers[0].result).toMatch(/^0x[0-9a-f]{64}$/);
    const limited = answers.filter((answer) => answer.error);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].error).toEqual({
      code: -32005,
      message: 'batch response too large: exceeds 400 bytes (--json-rpc.batch-response-max-size)',
    });
  });

  it('names the gas cap when a call or an estimate runs out of the gas it allows', async () => {
    // JUMPDEST PUSH1 0 JUMP: creation code that loops until its gas is spent.
    const loop = { data: '0x5b600056' };
    const failure = (method: string, params: unknown[]) =>
      daemon.rpc.call(method, params).catch((error: unknown) => error);
    expect(await failure('eth_call', [loop, 'latest'])).toMatchObject({
      code: -32000,
      message: 'out of gas (gas limited to 100000 by --json-rpc.gas-cap)',
    });
    expect(await failure('eth_call', [{ ...loop, gas: '0x1000000' }, 'latest'])).toMatchObject({
      message: 'out of gas (gas limited to 100000 by --json-rpc.gas-cap)',
    });
    // 70 000 gas covers the creation's intrinsic 53 054, and the loop spends the rest.
    expect(await failure('eth_call', [{ ...loop, gas: '0x11170' }, 'latest'])).toMatchObject({
      code: -32000,
      message: 'out of gas',
    });
    expect(await failure('eth_estimateGas', [loop])).toMatchObject({
      code: -32000,
      message: 'gas required exceeds allowance (100000) (--json-rpc.gas-cap)',
    });
    expect(await failure('eth_estimateGas', [{ ...loop, gas: '0x186a0' }])).toMatchObject({
      message: 'gas required exceeds allowance (100000)',
    });
    expect(await failure('eth_estimateGas', [{ ...loop, gas: '0xc350' }])).toMatchObject({
      code: -32000,
      message: 'intrinsic gas too low: gas 50000, minimum needed 53054',
    });
  });

  it('closes a WebSocket that sends an over-limit message with 1009, and keeps serving others', async () => {
    const socket = new WebSocket(daemon.endpoints.ws);
    await new Promise((resolve) => socket.once('open', resolve));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify(call(1, 'web3_sha3', [`0x${'00'.repeat(4096)}`])));
    expect(await closed).toBe(1009);
    const other = await WsRpcClient.connect(daemon.endpoints.ws);
    try {
      expect(await other.call('net_listening')).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('serves private methods over HTTP only with the right bearer token', async () => {
    await expect(daemon.rpc.call('miner_getHashrate')).rejects.toMatchObject({
      code: -32001,
      message: 'unauthorized: miner_getHashrate requires authentication',
    });
    const wrong = new HttpRpcClient(daemon.endpoints.http, { token: 'f'.repeat(64) });
    try {
      await expect(wrong.call('miner_getHashrate')).rejects.toMatchObject({ code: -32001 });
    } finally {
      await wrong.close();
    }
    expect(await daemon.authedRpc.call('miner_getHashrate')).toBe(0);
  });

  it('authenticates WebSocket upgrades by header or by the token query parameter', async () => {
    const anonymous = await WsRpcClient.connect(daemon.endpoints.ws);
    const byHeader = await WsRpcClient.connect(daemon.endpoints.ws, { token: daemon.token });
    const byQuery = await WsRpcClient.connect(`${daemon.endpoints.ws}/?token=${daemon.token}`);
    try {
      await expect(anonymous.call('debug_memStats')).rejects.toMatchObject({ code: -32001 });
      expect(await byHeader.call('debug_memStats')).toHaveProperty('heapUsed');
      expect(await byQuery.call('debug_memStats')).toHaveProperty('rss');
    } finally {
      await Promise.all([anonymous.close(), byHeader.close(), byQuery.close()]);
    }
  });

  it('answers CORS preflights for configured origins only', async () => {
    const preflight = await fetch(daemon.endpoints.http, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await fetch(daemon.endpoints.http, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses other HTTP methods and content types with a clear error', async () => {
    const get = await fetch(daemon.endpoints.http);
    expect(get.status).toBe(405);
    expect(((await get.json()) as { error: { message: string } }).error.message).toContain(
      'send JSON-RPC requests with POST',
    );
    const text = await daemon.rpc.post('{}', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    // A type that only begins like JSON's is another type.
    const lookalike = await daemon.rpc.post('{}', { 'content-type': 'application/json.foo' });
    expect(lookalike.status).toBe(415);
  });

  it('refuses a compressed body by its encoding, and takes identity', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}';
    const gzipped = await daemon.rpc.post(body, { 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(415);
    expect((gzipped.body as { error: { message: string } }).error.message).toBe(
      'unsupported content encoding "gzip": send the body uncompressed',
    );
    const identity = await daemon.rpc.post(body, { 'content-encoding': 'identity' });
    expect(identity.status).toBe(200);
  });

  it("takes geth's other JSON-RPC media types, with or without parameters", async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}';
    for (const type of [
      'application/jsonrequest',
      'application/json-rpc',
      'Application/JSON; charset=utf-8',
    ]) {
      const answer = await daemon.rpc.post(body, { 'content-type': type });
      expect(answer.status).toBe(200);
    }
  });
});
