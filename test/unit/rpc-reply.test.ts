/**
 * Answers in pieces (`src/daemon/rpc/reply.ts`): the dispatcher sends a result of 64 KiB or more
 * as pieces that join to exactly the text it would have sent whole, alone and in a batch; the
 * HTTP server writes pieces with the Content-Length of their UTF-8 bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { JsonText, RpcDispatcher } from '../../src/daemon/rpc/dispatcher.js';
import { MethodRegistry, defineMethod, type CallContext } from '../../src/daemon/rpc/registry.js';
import {
  PART_CHARS,
  PIECES_FROM_CHARS,
  batchReply,
  replyLength,
  replyParts,
  replyString,
  resultReply,
} from '../../src/daemon/rpc/reply.js';
import { createHttpServer, type HttpServer } from '../../src/daemon/transport/http-server.js';

const context: CallContext = {
  transport: 'http',
  authenticated: false,
  loopback: true,
  remoteAddress: '127.0.0.1',
};
const silent = { error: () => undefined, debug: () => undefined };
const large = 'x'.repeat(PIECES_FROM_CHARS);

function dispatcher(): RpcDispatcher {
  const registry = new MethodRegistry(new Set(['test'])).register({
    namespace: 'test',
    access: 'public',
    methods: [
      defineMethod<[]>({
        name: 'test_pieces',
        params: [],
        handler: () => new JsonText(['[', `"${large}"`, ',"é"', ']']),
      }),
      defineMethod<[]>({
        name: 'test_object',
        params: [],
        handler: () => ({ text: large }),
      }),
      defineMethod<[]>({
        name: 'test_small',
        params: [],
        handler: () => new JsonText(['[1', ',2]']),
      }),
    ],
  });
  return new RpcDispatcher(
    registry,
    { batchRequestLimit: 10, batchResponseMaxSize: 10_000_000, maxNesting: 128 },
    silent,
  );
}

describe('replies', () => {
  it('are one string below the threshold and pieces from it, joining to the same text', () => {
    expect(resultReply('1', '"short"')).toBe('{"jsonrpc":"2.0","id":1,"result":"short"}');
    const pieces = resultReply('"x"', `"${large}"`);
    expect(Array.isArray(pieces)).toBe(true);
    expect(replyString(pieces)).toBe(`{"jsonrpc":"2.0","id":"x","result":"${large}"}`);
    expect(replyLength(pieces)).toBe(replyString(pieces).length);
    expect(batchReply(['1', '2'])).toBe('[1,2]');
    expect(replyString(batchReply(['1', pieces, '2']))).toBe(`[1,${replyString(pieces)},2]`);
  });

  it('are written in parts: small pieces joined up to PART_CHARS, a long piece alone', () => {
    const small = Array.from({ length: 5000 }, (_, index) => `{"log":${index}},`);
    const pieces = ['[', ...small, large, ...small, ']'];
    const parts = [...replyParts(pieces)];
    expect(parts.join('')).toBe(pieces.join(''));
    expect(parts).toContain(large);
    const smallOnly = [...replyParts(small)];
    expect(smallOnly.join('')).toBe(small.join(''));
    for (const part of smallOnly.slice(0, -1)) {
      expect(part.length).toBeGreaterThanOrEqual(PART_CHARS);
      expect(part.length).toBeLessThan(PART_CHARS + 16);
    }
    expect([...replyParts([])]).toEqual([]);
    expect([...replyParts(['a', 'b'])]).toEqual(['ab']);
  });

  it('come from the dispatcher as pieces for large results, alone and in a batch', async () => {
    const rpc = dispatcher();
    const alone = await rpc.handleText('{"jsonrpc":"2.0","id":1,"method":"test_pieces"}', context);
    expect(Array.isArray(alone)).toBe(true);
    expect(JSON.parse(replyString(alone!))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: [large, 'é'],
    });
    const object = await rpc.handleText('{"jsonrpc":"2.0","id":2,"method":"test_object"}', context);
    expect(Array.isArray(object)).toBe(true);
    expect(JSON.parse(replyString(object!)).result).toEqual({ text: large });
    const small = await rpc.handleText('{"jsonrpc":"2.0","id":3,"method":"test_small"}', context);
    expect(small).toBe('{"jsonrpc":"2.0","id":3,"result":[1,2]}');
    const batch = await rpc.handleText(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'test_small' },
        { jsonrpc: '2.0', id: 'b', method: 'test_pieces' },
      ]),
      context,
    );
    expect(JSON.parse(replyString(batch!))).toEqual([
      { jsonrpc: '2.0', id: 'a', result: [1, 2] },
      { jsonrpc: '2.0', id: 'b', result: [large, 'é'] },
    ]);
  });
});

describe('the HTTP server', () => {
  let http: HttpServer;
  let url: string;
  const body = ['{"a":"', large, '","b":"é€"}'];
  /** A body of many small pieces, as `eth_getLogs` answers: about 2.6 MB. */
  const manyPieces = ['[', ...Array.from({ length: 40_000 }, (_, i) => `{"n":${i}},`), '0]'];

  beforeAll(async () => {
    http = createHttpServer({
      limits: { maxHeaderSize: 16 * 1024, maxBodySize: 1024, bodyLimitFlag: '--test' },
      keepAliveTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
      requestTimeoutFlag: '--test',
      maxBufferedResponse: 1024 * 1024,
      maxConnections: 10,
      overCapacity: { status: 503 },
      onOverCapacity: () => undefined,
      refuse: () => ({ status: 400 }),
      onHandlerError: () => undefined,
      internalError: { status: 500 },
      handle: (request) => ({
        status: 200,
        body: request.head.target === '/many' ? manyPieces : body,
      }),
    });
    await new Promise<void>((resolve) => http.server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await http?.close();
  });

  it('writes a body of pieces with the Content-Length of its UTF-8 bytes, then the next answer', async () => {
    const client = new Pool(url, { connections: 1, pipelining: 2 });
    try {
      // Each answer is read as it comes: a pipelined answer follows the body before it.
      const answers = await Promise.all(
        [1, 2].map(async () => {
          const answer = await client.request({
            method: 'POST',
            path: '/',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          });
          const bytes = Buffer.from(await answer.body.arrayBuffer());
          return { length: Number(answer.headers['content-length']), bytes };
        }),
      );
      for (const { length, bytes } of answers) {
        expect(bytes.toString('utf8')).toBe(body.join(''));
        expect(length).toBe(bytes.length);
      }
    } finally {
      await client.close();
    }
  });

  /** Sends `requests` on one raw connection and reads everything until the server ends it. */
  async function rawExchange(requests: string, waitBeforeReadingMs: number): Promise<string> {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.pause();
    socket.write(requests);
    // Left unread for a while, the answers fill the socket and the server waits for 'drain'.
    await new Promise((resolve) => setTimeout(resolve, waitBeforeReadingMs));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.resume();
    await new Promise((resolve) => socket.once('end', resolve));
    return Buffer.concat(chunks).toString('latin1');
  }

  it('writes a body of many pieces in order to a client that reads late, then the next answer', async () => {
    const request = (target: string, close = false) =>
      `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n${close ? 'Connection: close\r\n' : ''}\r\n{}`;
    const text = await rawExchange(request('/many') + request('/many') + request('/', true), 300);
    const expected = manyPieces.join('');
    const answers = text.split(/HTTP\/1\.1 200 OK\r\n/).slice(1);
    expect(answers).toHaveLength(3);
    for (const answer of answers.slice(0, 2)) {
      const [head, content] = answer.split('\r\n\r\n');
      expect(head).toContain(`Content-Length: ${expected.length}`);
      expect(content).toBe(expected);
    }
    expect(answers[2]!.split('\r\n\r\n')[1]).toBe(Buffer.from(body.join('')).toString('latin1'));
  });

  it('streams a body of many pieces on a connection it closes after', async () => {
    const text = await rawExchange(
      'POST /many HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}',
      300,
    );
    expect(text).toContain('Connection: close');
    expect(text.split('\r\n\r\n')[1]).toBe(manyPieces.join(''));
  });

  it('keeps answering others when a client leaves in the middle of a body', async () => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.pause();
    socket.write('POST /many HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    const client = new Pool(url, { connections: 1 });
    try {
      const answer = await client.request({ method: 'POST', path: '/many', body: '{}' });
      expect(await answer.body.text()).toBe(manyPieces.join(''));
    } finally {
      await client.close();
    }
  });
});
