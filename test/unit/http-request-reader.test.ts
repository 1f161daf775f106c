import { describe, expect, it } from '@jest/globals';
import {
  HttpRequestReader,
  type ReaderEvent,
} from '../../src/daemon/transport/http-request-reader.js';

const LIMITS = { maxHeaderSize: 512, maxBodySize: 64, bodyLimitFlag: '--json-rpc.max-body-size' };

function post(body: string, extra = ''): string {
  return (
    `POST / HTTP/1.1\r\nHost: node\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`
  );
}

function readAll(...chunks: string[]): ReaderEvent[] {
  const reader = new HttpRequestReader(LIMITS);
  return chunks.flatMap((chunk) => reader.push(Buffer.from(chunk, 'utf8')));
}

function bodies(events: ReaderEvent[]): string[] {
  return events.flatMap((event) =>
    event.kind === 'request' ? [event.request.body.toString('utf8')] : [],
  );
}

function refusal(events: ReaderEvent[]): { status: number; message: string } | undefined {
  const event = events.find((candidate) => candidate.kind === 'error');
  return event?.kind === 'error'
    ? { status: event.error.status, message: event.error.message }
    : undefined;
}

describe('HttpRequestReader', () => {
  it('reads a request with its headers and body', () => {
    const [event] = readAll(post('{"a":1}', 'Origin: http://x\r\nAuthorization: Bearer t\r\n'));
    expect(event.kind).toBe('request');
    if (event.kind !== 'request') return;
    expect(event.request.head).toMatchObject({
      method: 'POST',
      target: '/',
      keepAlive: true,
      http10: false,
      headers: { host: 'node', origin: 'http://x', authorization: 'Bearer t' },
    });
    expect(event.request.body.toString()).toBe('{"a":1}');
  });

  it('gives the same requests whatever way the bytes are split', () => {
    const stream = post('{"first":true}') + post('{"second":"é"}');
    const whole = bodies(readAll(stream));
    expect(whole).toEqual(['{"first":true}', '{"second":"é"}']);
    const bytes = Buffer.from(stream, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const reader = new HttpRequestReader(LIMITS);
      const events = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))];
      expect(bodies(events)).toEqual(whole);
    }
    const reader = new HttpRequestReader(LIMITS);
    const oneByOne = [...bytes].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(bodies(oneByOne)).toEqual(whole);
  });

  it('decodes chunked bodies with extensions and trailers', () => {
    const head = 'POST / HTTP/1.1\r\nHost: n\r\nTransfer-Encoding: chunked\r\n\r\n';
    const events = readAll(head, '4;ext=1\r\n{"a"\r\n', '3\r\n:1}\r\n0\r\nX-Trailer: y\r\n\r\n');
    expect(bodies(events)).toEqual(['{"a":1}']);
  });

  it('ignores empty lines before a request line', () => {
    expect(bodies(readAll(`\r\n\r\n${post('{}')}`))).toEqual(['{}']);
  });

  it('keeps HTTP/1.1 alive unless told to close, HTTP/1.0 only when asked', () => {
    const heads = readAll(
      post('1', 'Connection: close\r\n'),
      'POST / HTTP/1.0\r\nContent-Length: 1\r\n\r\n2',
    ).flatMap((event) => (event.kind === 'request' ? [event.request.head] : []));
    expect(heads.map((head) => [head.keepAlive, head.http10])).toEqual([
      [false, false],
      [false, true],
    ]);
    const [keep] = readAll(
      'POST / HTTP/1.0\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\n2',
    );
    expect(keep.kind === 'request' && keep.request.head).toMatchObject({
      keepAlive: true,
      http10: true,
    });
  });

  it('asks for the body of an Expect: 100-continue request before it arrives', () => {
    const events = readAll(
      'POST / HTTP/1.1\r\nHost: n\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n',
    );
    expect(events.map((event) => event.kind)).toEqual(['continue']);
  });

  it.each([
    [
      'a body over the limit',
      post('x'.repeat(65)),
      413,
      /too large: the limit is 64 bytes \(--json-rpc.max-body-size\)/,
    ],
    [
      'a chunked body over the limit',
      'POST / HTTP/1.1\r\nHost: n\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n' +
        'x'.repeat(64) +
        '\r\n1\r\n',
      413,
      /too large/,
    ],
    [
      'headers over the limit',
      `POST / HTTP/1.1\r\nHost: n\r\nX: ${'y'.repeat(600)}`,
      431,
      /headers too large/,
    ],
    [
      'both framings',
      post('{}', 'Transfer-Encoding: chunked\r\n'),
      400,
      /both Transfer-Encoding and Content-Length/,
    ],
    ['conflicting lengths', post('{}', 'Content-Length: 3\r\n'), 400, /conflicting Content-Length/],
    [
      'a non-numeric length',
      'POST / HTTP/1.1\r\nHost: n\r\nContent-Length: +2\r\n\r\n{}',
      400,
      /invalid Content-Length/,
    ],
    [
      'an unknown transfer coding',
      'POST / HTTP/1.1\r\nHost: n\r\nTransfer-Encoding: gzip\r\n\r\n',
      501,
      /"gzip" not supported/,
    ],
    [
      'a folded header',
      'POST / HTTP/1.1\r\nHost: n\r\n  folded\r\n\r\n',
      400,
      /malformed header line 2/,
    ],
    ['a malformed request line', 'POST /\r\nHost: n\r\n\r\n', 400, /malformed request line/],
    ['HTTP/2', 'POST / HTTP/2.0\r\nHost: n\r\n\r\n', 505, /version 2.0 not supported/],
    ['no Host in HTTP/1.1', 'POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n', 400, /missing Host/],
    ['an unknown expectation', post('{}', 'Expect: magic\r\n'), 417, /"magic" not supported/],
    [
      'a bad chunk size',
      'POST / HTTP/1.1\r\nHost: n\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      400,
      /malformed chunk size/,
    ],
    [
      'a chunk longer than its size',
      'POST / HTTP/1.1\r\nHost: n\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n',
      400,
      /chunk data longer/,
    ],
  ])('refuses %s', (_, text, status, message) => {
    const events = readAll(text);
    expect(refusal(events)?.status).toBe(status);
    expect(refusal(events)?.message).toMatch(message);
  });

  it('reads nothing more after refusing a request', () => {
    const reader = new HttpRequestReader(LIMITS);
    expect(reader.push(Buffer.from('BAD\r\n\r\n'))[0].kind).toBe('error');
    expect(reader.push(Buffer.from(post('{}')))).toEqual([]);
  });

  it('reports a request in progress from its first byte to the end of its body', () => {
    const reader = new HttpRequestReader(LIMITS);
    expect(reader.readingRequest).toBe(false);
    reader.push(Buffer.from('POST / HT'));
    expect(reader.readingRequest).toBe(true);
    const rest = post('{}').slice('POST / HT'.length);
    reader.push(Buffer.from(rest.slice(0, -1)));
    expect(reader.readingRequest).toBe(true);
    reader.push(Buffer.from(rest.slice(-1)));
    expect(reader.readingRequest).toBe(false);
  });

  it('counts empty lines before a request as the start of one, and toward its head size', () => {
    const reader = new HttpRequestReader(LIMITS);
    expect(reader.push(Buffer.from('\r\n\r\n'))).toEqual([]);
    expect(reader.readingRequest).toBe(true);
    const refused = refusal(reader.push(Buffer.from('\r\n'.repeat(LIMITS.maxHeaderSize))));
    expect(refused?.status).toBe(431);
  });

  it('collects a body sent as one-byte chunks into one buffer of the body size', () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"x"}'.slice(0, LIMITS.maxBodySize);
    const chunks = [...body].map((char) => `1\r\n${char}\r\n`).join('');
    const head =
      'POST / HTTP/1.1\r\nHost: node\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    const events = readAll(head, ...chunks.match(/[\s\S]{1,7}/g)!, '0\r\n\r\n');
    expect(bodies(events)).toEqual([body]);
    const [event] = events;
    if (event.kind !== 'request') throw new Error('expected a request');
    expect(event.request.body.buffer.byteLength).toBeLessThanOrEqual(16 * 1024);
  });
});
