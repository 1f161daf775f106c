import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { RawConnection, post } from '../helpers/raw-http.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const call = (id: number, method: string) => JSON.stringify({ jsonrpc: '2.0', id, method });

describe('HTTP/1.1 transport of the JSON-RPC endpoint', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--json-rpc.max-body-size', '2KiB']);
  });
  afterAll(() => daemon?.stop());

  it('answers pipelined requests in order on one connection, and keeps it open', async () => {
    const connection = await RawConnection.open(daemon.endpoints.http);
    connection.write(
      post(call(1, 'net_version')) + post(call(2, 'eth_chainId')) + post(call(3, 'net_version')),
    );
    const answers = await connection.responses(3);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => JSON.parse(answer.body))).toEqual([
      { jsonrpc: '2.0', id: 1, result: '9000' },
      { jsonrpc: '2.0', id: 2, result: '0x2328' },
      { jsonrpc: '2.0', id: 3, result: '9000' },
    ]);
    expect(answers[0].headers).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answers[0].headers).toMatch(/\r\nDate: .+ GMT/);
    expect(answers[0].headers).toMatch(/\r\nContent-Type: application\/json/);
    connection.write(post(call(4, 'net_version')));
    expect((await connection.responses(4))[3].status).toBe(200);
    connection.end();
  });

  it('answers what a client sent before closing its side, then closes', async () => {
    // eth_call is answered asynchronously (on a call thread): its answer comes after the FIN.
    const callSha256 = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: '0x0000000000000000000000000000000000000002', data: '0x' }, 'latest'],
    });
    const complete = await RawConnection.open(daemon.endpoints.http);
    complete.write(post(callSha256) + post(call(2, 'net_version')));
    complete.endWriting();
    const answers = await complete.responses(2);
    expect(answers.map((answer) => JSON.parse(answer.body).id)).toEqual([1, 2]);
    expect(JSON.parse(answers[0].body).result).toMatch(/^0xe3b0c442/);
    expect(await complete.closedByServer()).toBe(true);

    const cutShort = await RawConnection.open(daemon.endpoints.http);
    cutShort.write(post(call(3, 'net_version')).slice(0, -5));
    cutShort.endWriting();
    const [refused] = await cutShort.responses(1);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.message).toBe(
      'the client closed its side before the request was complete',
    );
    expect(await cutShort.closedByServer()).toBe(true);
  });

  it('closes after a request that asks for it, and serves HTTP/1.0', async () => {
    const closing = await RawConnection.open(daemon.endpoints.http);
    closing.write(post(call(1, 'net_version'), 'Connection: close\r\n'));
    const [answer] = await closing.responses(1);
    expect(answer.headers).toMatch(/\r\nConnection: close/);
    expect(await closing.closedByServer()).toBe(true);

    const old = await RawConnection.open(daemon.endpoints.http);
    const body = call(2, 'net_version');
    old.write(
      `POST / HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const [oldAnswer] = await old.responses(1);
    expect(JSON.parse(oldAnswer.body)).toEqual({ jsonrpc: '2.0', id: 2, result: '9000' });
    expect(await old.closedByServer()).toBe(true);
  });

  it('sends 100 Continue before reading the body of a request that expects it', async () => {
    const connection = await RawConnection.open(daemon.endpoints.http);
    const body = call(1, 'net_version');
    connection.write(
      `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    const [interim] = await connection.responses(1);
    expect(interim.status).toBe(100);
    connection.write(body);
    const answers = await connection.responses(2);
    expect(JSON.parse(answers[1].body)).toEqual({ jsonrpc: '2.0', id: 1, result: '9000' });
    connection.end();
  });

  it('reads chunked request bodies', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const request = httpRequest(
        daemon.endpoints.http,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve(text));
        },
      );
      request.on('error', reject);
      Readable.from(['{"jsonrpc":"2.0",', '"id":7,"method":', '"net_version"}']).pipe(request);
    });
    expect(JSON.parse(answer)).toEqual({ jsonrpc: '2.0', id: 7, result: '9000' });
  });

  it('answers a malformed request with 400 naming the problem, closes, and keeps serving', async () => {
    const connection = await RawConnection.open(daemon.endpoints.http);
    connection.write(post('{}', 'Transfer-Encoding: chunked\r\n'));
    const [answer] = await connection.responses(1);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toEqual({
      code: -32600,
      message: 'bad request: both Transfer-Encoding and Content-Length are present',
    });
    expect(await connection.closedByServer()).toBe(true);
    expect(await daemon.rpc.call('net_version')).toBe('9000');
  });

  it('answers HEAD with the headers of GET and no body, so a kept-alive POST after it reads right', async () => {
    const connection = await RawConnection.open(daemon.endpoints.http);
    connection.write('HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const [head] = await connection.responses(1, [0]);
    expect(head.status).toBe(405);
    expect(head.headers).toMatch(/\r\nAllow: POST, OPTIONS\r\n/);
    expect(head.headers).toMatch(/\r\nContent-Type: application\/json\r\nContent-Length: [1-9]/);
    expect(head.body).toBe('');
    connection.write(post(call(1, 'net_version')));
    const answers = await connection.responses(2, [0]);
    expect(answers[1].status).toBe(200);
    expect(JSON.parse(answers[1].body)).toEqual({ jsonrpc: '2.0', id: 1, result: '9000' });
    connection.end();
  });

  it('refuses a header value holding a control character with 400, and closes', async () => {
    const connection = await RawConnection.open(daemon.endpoints.http);
    connection.write(post(call(1, 'net_version'), 'X-Forwarded-For: 1.2.3.4\x0b\r\n'));
    const [answer] = await connection.responses(1);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toEqual({
      code: -32600,
      message: 'bad request: invalid character in header X-Forwarded-For',
    });
    expect(await connection.closedByServer()).toBe(true);
  });

  it('answers a chunked body over the limit with 413 without reading it all', async () => {
    const connection = await RawConnection.open(daemon.endpoints.http);
    connection.write(
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Transfer-Encoding: chunked\r\n\r\n1000\r\n${'x'.repeat(100)}`,
    );
    const [answer] = await connection.responses(1);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.message).toBe(
      'request body too large: the limit is 2048 bytes (--json-rpc.max-body-size)',
    );
    expect(await connection.closedByServer()).toBe(true);
  });
});
