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

/** Reads text whose characters are the bytes sent (for bytes above 0x7F). */
function readLatin1(text: string): ReaderEvent[] {
  return new HttpRequestReader(LIMITS).push(Buffer.from(text, 'latin1'));
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
    [
      'conflicting lengths',
      post('{}', 'Content-Length: 3\r\n'),
      400,
      /more than one Content-Length/,
    ],
    [
      'repeated equal lengths',
      post('{}', 'Content-Length: 2\r\n'),
      400,
      /more than one Content-Length/,
    ],
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
      /folded header line 2 \(obs-fold\)/,
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

  describe('header fields (RFC 9110 §5)', () => {
    const withValue = (value: string) =>
      `POST / HTTP/1.1\r\nHost: n\r\nOrigin: ${value}\r\nContent-Length: 0\r\n\r\n`;
    const origin = (text: string) => {
      const [event] = readLatin1(text);
      return event.kind === 'request' ? event.request.head.headers.origin : undefined;
    };

    const forbidden: [string, number][] = [
      ['NUL', 0x00],
      ['SOH', 0x01],
      ['BS', 0x08],
      ['LF', 0x0a],
      ['VT', 0x0b],
      ['FF', 0x0c],
      ['CR', 0x0d],
      ['SO', 0x0e],
      ['ESC', 0x1b],
      ['US', 0x1f],
      ['DEL', 0x7f],
    ];
    it.each(forbidden)('refuses %s before, inside and after a value', (_, code) => {
      const byte = String.fromCharCode(code);
      for (const value of [`${byte}x`, `x${byte}y`, `x${byte}`]) {
        expect(refusal(readLatin1(withValue(value)))).toEqual({
          status: 400,
          message: 'bad request: invalid character in header Origin',
        });
      }
    });

    it('strips only SP and HTAB around a value, and keeps obs-text as llhttp does', () => {
      expect(origin(withValue(' \t http://x \t '))).toBe('http://x');
      expect(origin(withValue('a\tb'))).toBe('a\tb');
      expect(origin(withValue('\xa0x\xa0'))).toBe('\xa0x\xa0');
      expect(origin(withValue('\x80\xff'))).toBe('\x80\xff');
    });

    it('keeps a framing value with NBSP around it unframed', () => {
      const text = 'POST / HTTP/1.1\r\nHost: n\r\nContent-Length: 2\xa0\r\n\r\n{}';
      expect(refusal(readLatin1(text))).toEqual({
        status: 400,
        message: 'bad request: invalid Content-Length "2\xa0"',
      });
    });

    it.each([
      ['a space before the colon', 'Origin : x'],
      ['a space inside the name', 'Ori gin: x'],
      ['a non-token character', 'Ori@gin: x'],
      ['obs-text in the name', 'Ori\xe9gin: x'],
      ['a control in the name', 'Ori\x01gin: x'],
      ['an empty name', ': x'],
      ['no colon', 'Origin x'],
    ])('refuses a field name with %s', (_, line) => {
      const text = `POST / HTTP/1.1\r\nHost: n\r\n${line}\r\n\r\n`;
      expect(refusal(readLatin1(text))).toEqual({
        status: 400,
        message: 'bad request: malformed header line 2',
      });
    });

    it.each([
      ['SP', ' '],
      ['HTAB', '\t'],
    ])('refuses an obs-fold continuation starting with %s', (_, space) => {
      const text = `POST / HTTP/1.1\r\nHost: n\r\nOrigin: a\r\n${space}b\r\n\r\n`;
      expect(refusal(readLatin1(text))?.message).toBe(
        'bad request: folded header line 3 (obs-fold)',
      );
    });
  });

  describe('request line', () => {
    it.each([
      ['SOH', '/\x01'],
      ['DEL', '/\x7f'],
      ['0x80', '/\x80'],
      ['NBSP', '/\xa0'],
    ])('refuses a target holding %s', (_, target) => {
      const text = `POST ${target} HTTP/1.1\r\nHost: n\r\n\r\n`;
      expect(refusal(readLatin1(text))?.message).toBe('bad request: malformed request line');
    });

    it.each(['1.2', '0.9', '2.0'])('refuses HTTP/%s with 505', (version) => {
      expect(refusal(readLatin1(`POST / HTTP/${version}\r\nHost: n\r\n\r\n`))).toEqual({
        status: 505,
        message: `HTTP version ${version} not supported`,
      });
    });

    it('refuses CONNECT, whose following bytes would be a tunnel', () => {
      expect(refusal(readLatin1('CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n'))?.status).toBe(501);
    });

    it('refuses a head with bare LF line ends as soon as it arrives', () => {
      const reader = new HttpRequestReader(LIMITS);
      const events = reader.push(Buffer.from('POST / HTTP/1.1\nHost: n\n\n'));
      expect(refusal(events)?.message).toBe('bad request: line ended by LF without CR');
    });
  });

  describe('chunked bodies and trailers', () => {
    const chunked = (rest: string) =>
      `POST / HTTP/1.1\r\nHost: n\r\nTransfer-Encoding: chunked\r\n\r\n${rest}`;

    it('reads leading zeros, both hex cases and quoted extensions', () => {
      const events = readAll(
        chunked(
          '0000000002\r\n{}\r\na;q="a \\" b";t\r\n0123456789\r\nA\r\n0123456789\r\n0\r\n\r\n',
        ),
      );
      expect(bodies(events)).toEqual([`{}${'0123456789'.repeat(2)}`]);
    });

    it.each([
      ['whitespace before an extension', '2 ;x\r\n{}\r\n0\r\n\r\n'],
      ['a control in an extension', '2;x\x01\r\n{}\r\n0\r\n\r\n'],
      ['an unclosed quoted extension', '2;x="a\r\n{}\r\n0\r\n\r\n'],
      ['more than 8 significant digits', '100000002\r\n{}\r\n0\r\n\r\n'],
    ])('refuses a chunk size line with %s', (_, rest) => {
      expect(refusal(readAll(chunked(rest)))?.message).toBe('bad request: malformed chunk size');
    });

    it.each([
      ['a control in a value', 'X-T: a\x0bb', 'bad request: invalid character in header X-T'],
      ['DEL in a value', 'X-T: a\x7f', 'bad request: invalid character in header X-T'],
      ['an obs-fold', 'X-T: a\r\n b', 'bad request: folded header line 2 (obs-fold)'],
      ['a malformed name', 'X T: a', 'bad request: malformed header line 1'],
      ['a bare LF', 'X-T: a\nX-U: b', 'bad request: invalid character in header X-T'],
      [
        'Content-Length',
        'Content-Length: 5',
        'bad request: content-length not allowed in trailers',
      ],
      [
        'Transfer-Encoding',
        'Transfer-Encoding: chunked',
        'bad request: transfer-encoding not allowed in trailers',
      ],
    ])('refuses a trailer with %s', (_, trailer, message) => {
      expect(refusal(readAll(chunked(`2\r\n{}\r\n0\r\n${trailer}\r\n\r\n`)))?.message).toBe(
        message,
      );
    });

    it.each([
      ['chunk size line', '2\n{}'],
      ['trailer section', '2\r\n{}\r\n0\r\nX-T: v\n'],
    ])('refuses a %s ended by bare LF as soon as it arrives', (what, rest) => {
      expect(refusal(readAll(chunked(rest)))?.message).toBe(
        `bad request: ${what} ended by LF without CR`,
      );
    });

    it('reads the same chunked requests whatever way the bytes are split', () => {
      const stream = Buffer.from(
        chunked('3;a="b\\"c"\r\n{\n\r\r\n2\r\n\r}\r\n0\r\nX-T: v\r\n\r\n') + post('[]'),
      );
      for (let cut = 1; cut < stream.length; cut++) {
        const reader = new HttpRequestReader(LIMITS);
        const events = [
          ...reader.push(stream.subarray(0, cut)),
          ...reader.push(stream.subarray(cut)),
        ];
        expect(bodies(events)).toEqual(['{\n\r\r}', '[]']);
      }
    });

    it('bounds the trailer section by the header limit', () => {
      const trailer = `X-T: ${'t'.repeat(LIMITS.maxHeaderSize)}\r\n\r\n`;
      expect(refusal(readAll(chunked(`2\r\n{}\r\n0\r\n${trailer}`)))?.message).toBe(
        'bad request: trailer section too long',
      );
    });

    it('reads the request after a trailer section', () => {
      const events = readAll(chunked('2\r\n{}\r\n0\r\nX-T: v\r\nHost: other\r\n\r\n') + post('[]'));
      expect(bodies(events)).toEqual(['{}', '[]']);
      expect(events[0].kind === 'request' && events[0].request.head.headers.host).toBe('n');
    });
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
