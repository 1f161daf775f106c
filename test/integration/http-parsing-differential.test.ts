/**
 * Differential test of the JSON-RPC endpoint's HTTP/1.1 reader against Node's own (llhttp, with
 * Node's default options): the same raw bytes go to the project's server (started in process)
 * and to a plain `node:http` server with the same body limit, both behind a handler that echoes
 * what it was given. For each case the two must agree on which requests were seen on the
 * connection (method, target, body bytes) and on whether the connection ended in a refusal.
 * Cases where they deliberately differ are listed in DELIBERATE_DIFFERENCES with the reason
 * (docs/security.md, "HTTP parsing"); the test also fails if one of those stops differing, so
 * the list stays true.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createServer as createNodeServer,
  type IncomingMessage,
  type Server as NodeServer,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { IncompleteRequestError } from '../../src/daemon/transport/http-request-reader.js';
import { createHttpServer, type HttpServer } from '../../src/daemon/transport/http-server.js';
import { exchange, type RawResponse } from '../helpers/raw-http-exchange.js';

const BODY_LIMIT = 1024;
const HEADER_LIMIT = 16 * 1024;

interface Seen {
  method: string;
  target: string;
  /** The body, base64. */
  body: string;
}

/** What a client could tell about one connection. */
interface Outcome {
  seen: Seen[];
  /** The connection ended with an answer that did not come from the handler (4xx/5xx). */
  refused: boolean;
}

// ---------------------------------------------------------------------------------------------
// The corpus, generated from tables.

const HOST = 'Host: h\r\n';
const BODY = '{}';
const NEXT = `POST /next HTTP/1.1\r\n${HOST}Content-Length: 2\r\n\r\n[]`;

function post(headers: string, body = BODY): string {
  return `POST / HTTP/1.1\r\n${HOST}${headers}\r\n${body}`;
}

/** A POST framed by Content-Length, with `header` added, followed by a second request. */
function withHeader(header: string): string {
  return post(`${header}\r\nContent-Length: 2\r\n`) + NEXT;
}

const ODD_BYTES: readonly [string, number][] = [
  ['NUL', 0x00],
  ['SOH', 0x01],
  ['BS', 0x08],
  ['HTAB', 0x09],
  ['LF', 0x0a],
  ['VT', 0x0b],
  ['FF', 0x0c],
  ['CR', 0x0d],
  ['SO', 0x0e],
  ['US', 0x1f],
  ['SP', 0x20],
  ['DEL', 0x7f],
  ['0x80', 0x80],
  ['NBSP', 0xa0],
  ['0xFF', 0xff],
];

const REQUEST_LINES: readonly [string, string][] = [
  ['plain', 'POST / HTTP/1.1'],
  ['query target', 'POST /a?b=c&d=%20 HTTP/1.1'],
  ['absolute target', 'POST http://h/x HTTP/1.1'],
  ['asterisk target', 'OPTIONS * HTTP/1.1'],
  ['two spaces after method', 'POST  / HTTP/1.1'],
  ['two spaces before version', 'POST /  HTTP/1.1'],
  ['trailing space', 'POST / HTTP/1.1 '],
  ['tab separator', 'POST\t/ HTTP/1.1'],
  ['lower-case version', 'POST / http/1.1'],
  ['HTTP/1.2', 'POST / HTTP/1.2'],
  ['HTTP/2.0', 'POST / HTTP/2.0'],
  ['HTTP/0.9', 'POST / HTTP/0.9'],
  ['HTTP/1.10', 'POST / HTTP/1.10'],
  ['no version', 'POST /'],
  ['lower-case method', 'post / HTTP/1.1'],
  ['unknown method', 'FOO / HTTP/1.1'],
  ['GET', 'GET / HTTP/1.1'],
  ['DELETE', 'DELETE / HTTP/1.1'],
  ['empty target', 'POST  HTTP/1.1'],
  ['target with SOH', 'POST /\x01 HTTP/1.1'],
  ['target with DEL', 'POST /\x7f HTTP/1.1'],
  ['target with 0x80', 'POST /\x80 HTTP/1.1'],
  ['target with NBSP', 'POST /\xa0 HTTP/1.1'],
  ['target with quote', 'POST /"x" HTTP/1.1'],
];

const HEADER_NAMES: readonly [string, string][] = [
  ['space in name', 'X Test: v'],
  ['space before colon', 'X-Test : v'],
  ['tab before colon', 'X-Test\t: v'],
  ['empty name', ': v'],
  ['no colon', 'X-Test v'],
  ['non-token @', 'X@Test: v'],
  ['non-token 0x80', 'X\x80Test: v'],
  ['control in name', 'X\x01Test: v'],
  ['all token characters', "!#$%&'*+-.^_`|~09azAZ: v"],
  ['no space after colon', 'X-Test:v'],
  ['empty value', 'X-Test:'],
  ['only whitespace value', 'X-Test: \t '],
];

/** Content-Length forms: [name, values (one header each), the bytes after the head]. */
const CONTENT_LENGTHS: readonly [string, string[], string?][] = [
  ['plain', ['2']],
  ['leading zero', ['02']],
  ['many leading zeros', ['0000000000000000000002']],
  ['plus sign', ['+2']],
  ['minus sign', ['-2']],
  ['list of equal values', ['2, 2']],
  ['list without space', ['2,2']],
  ['two equal headers', ['2', '2']],
  ['two different headers', ['2', '3']],
  ['hex', ['0x2']],
  ['decimal point', ['2.0']],
  ['exponent', ['2e0']],
  ['empty', ['']],
  ['overflowing', ['99999999999999999999999999']],
  ['over the body limit', [String(BODY_LIMIT + 1)], 'x'.repeat(BODY_LIMIT + 1) + NEXT],
  ['at the body limit', [String(BODY_LIMIT)], 'x'.repeat(BODY_LIMIT) + NEXT],
  ['trailing space', ['2 ']],
  ['space inside', ['1 2']],
  ['zero, then a body', ['0']],
  ['shorter than the body', ['1']],
];

const CHUNKED = `2\r\n${BODY}\r\n0\r\n\r\n`;

const TRANSFER_ENCODINGS: readonly [string, string[]][] = [
  ['chunked', ['chunked']],
  ['upper case', ['CHUNKED']],
  ['chunked, identity', ['chunked, identity']],
  ['identity, chunked', ['identity, chunked']],
  ['gzip, chunked', ['gzip, chunked']],
  ['chunked, chunked', ['chunked, chunked']],
  ['two headers gzip then chunked', ['gzip', 'chunked']],
  ['two headers chunked then chunked', ['chunked', 'chunked']],
  ['identity', ['identity']],
  ['gzip', ['gzip']],
  ['xchunked', ['xchunked']],
  ['trailing space', ['chunked ']],
  ['trailing tab', ['chunked\t']],
  ['trailing VT', ['chunked\x0b']],
  ['trailing NBSP', ['chunked\xa0']],
  ['empty', ['']],
];

/** Chunked bodies: [name, the bytes after the head]. */
const CHUNK_FORMS: readonly [string, string][] = [
  ['one chunk', CHUNKED],
  ['two chunks', `1\r\n{\r\n1\r\n}\r\n0\r\n\r\n`],
  ['leading zeros', `002\r\n${BODY}\r\n0\r\n\r\n`],
  ['twenty leading zeros', `000000000000000000002\r\n${BODY}\r\n0\r\n\r\n`],
  ['lower-case hex', `a\r\n0123456789\r\n0\r\n\r\n`],
  ['upper-case hex', `A\r\n0123456789\r\n0\r\n\r\n`],
  ['extension', `2;name=value\r\n${BODY}\r\n0\r\n\r\n`],
  ['bare extension', `2;name\r\n${BODY}\r\n0\r\n\r\n`],
  ['quoted extension', `2;name="a b"\r\n${BODY}\r\n0\r\n\r\n`],
  ['extension after space', `2 ;name\r\n${BODY}\r\n0\r\n\r\n`],
  ['extension with control', `2;na\x01me\r\n${BODY}\r\n0\r\n\r\n`],
  ['extension on last chunk', `2\r\n${BODY}\r\n0;name=value\r\n\r\n`],
  ['leading space', ` 2\r\n${BODY}\r\n0\r\n\r\n`],
  ['trailing space', `2 \r\n${BODY}\r\n0\r\n\r\n`],
  ['trailing tab', `2\t\r\n${BODY}\r\n0\r\n\r\n`],
  ['0x prefix', `0x2\r\n${BODY}\r\n0\r\n\r\n`],
  ['minus sign', `-2\r\n${BODY}\r\n0\r\n\r\n`],
  ['overflowing size', `10000000000000002\r\n${BODY}\r\n0\r\n\r\n`],
  [
    'size over the body limit',
    `${(BODY_LIMIT + 1).toString(16)}\r\n${'x'.repeat(BODY_LIMIT + 1)}\r\n0\r\n\r\n`,
  ],
  ['empty size line', `\r\n${BODY}\r\n0\r\n\r\n`],
  ['bare LF after size', `2\n${BODY}\r\n0\r\n\r\n`],
  ['bare LF after data', `2\r\n${BODY}\n0\r\n\r\n`],
  ['data longer than size', `1\r\n${BODY}\r\n0\r\n\r\n`],
  ['double-zero last chunk', `2\r\n${BODY}\r\n00\r\n\r\n`],
  ['bare LF ending', `2\r\n${BODY}\r\n0\r\n\n`],
];

/** Trailer sections after a one-chunk body: [name, the trailer lines, each ending CRLF]. */
const TRAILERS: readonly [string, string][] = [
  ['one field', 'X-Trailer: v\r\n'],
  ['two fields', 'X-A: 1\r\nX-B: 2\r\n'],
  ['Content-Length', 'Content-Length: 5\r\n'],
  ['Transfer-Encoding', 'Transfer-Encoding: chunked\r\n'],
  ['Host', 'Host: other\r\n'],
  ['value with NUL', 'X-Trailer: a\x00b\r\n'],
  ['value with VT', 'X-Trailer: a\x0bb\r\n'],
  ['value with DEL', 'X-Trailer: a\x7fb\r\n'],
  ['value with 0x80', 'X-Trailer: a\x80b\r\n'],
  ['value with trailing NBSP', 'X-Trailer: v\xa0\r\n'],
  ['obs-fold', 'X-Trailer: a\r\n b\r\n'],
  ['space in name', 'X Trailer: v\r\n'],
  ['no colon', 'X-Trailer\r\n'],
  ['bare LF', 'X-Trailer: v\n'],
  ['oversized', `X-Trailer: ${'t'.repeat(HEADER_LIMIT + 10)}\r\n`],
];

/** Whole connections: [name, bytes]. */
const CONNECTIONS: readonly [string, string][] = [
  ['pipeline of three', post('Content-Length: 2\r\n') + NEXT + NEXT],
  [
    'pipeline of empty bodies',
    post('Content-Length: 0\r\n', '') + post('Content-Length: 0\r\n', ''),
  ],
  ['pipeline with a bad second request', post('Content-Length: 2\r\n') + 'BAD\r\n\r\n' + NEXT],
  [
    'Connection: close stops the pipeline',
    post('Connection: close\r\nContent-Length: 2\r\n') + NEXT,
  ],
  ['no body framing means no body', post('', '') + NEXT],
  ['leading empty line', `\r\n${post('Content-Length: 2\r\n')}`],
  ['leading bare LF', `\n${post('Content-Length: 2\r\n')}`],
  ['head ended by bare LFs', `POST / HTTP/1.1\n${HOST.trim()}\nContent-Length: 2\n\n${BODY}`],
  ['request line ended by bare LF', `POST / HTTP/1.1\n${HOST}Content-Length: 2\r\n\r\n${BODY}`],
  ['header ended by bare LF', `POST / HTTP/1.1\r\nHost: h\nContent-Length: 2\r\n\r\n${BODY}`],
  ['head ended by LF CRLF', `POST / HTTP/1.1\r\n${HOST}Content-Length: 2\n\r\n${BODY}`],
  ['lone CR line end', `POST / HTTP/1.1\r${HOST}Content-Length: 2\r\n\r\n${BODY}`],
  ['obs-fold', withHeader('X-Test: a\r\n b')],
  ['obs-fold with tab', withHeader('X-Test: a\r\n\tb')],
  ['obs-fold of Content-Length', post('Content-Length:\r\n 2\r\n') + NEXT],
  ['first header line folded', `POST / HTTP/1.1\r\n X-Test: a\r\n${HOST}\r\n`],
  ['HTTP/1.1 without Host', `POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n${BODY}`],
  ['two Host headers', withHeader('Host: other')],
  ['empty Host', `POST / HTTP/1.1\r\nHost:\r\nContent-Length: 2\r\n\r\n${BODY}`],
  ['HTTP/1.0 without Host', `POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\n${BODY}${NEXT}`],
  [
    'HTTP/1.0 keep-alive pipeline',
    `POST / HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n${BODY}${NEXT}`,
  ],
  [
    'HTTP/1.0 chunked',
    `POST / HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n${CHUNKED}`,
  ],
  ['HEAD then POST', `HEAD / HTTP/1.1\r\n${HOST}\r\n${NEXT}`],
  ['HEAD with a body', post('Content-Length: 2\r\n').replace('POST', 'HEAD') + NEXT],
  ['GET then POST', `GET / HTTP/1.1\r\n${HOST}\r\n${NEXT}`],
  ['GET with a body', post('Content-Length: 2\r\n').replace('POST', 'GET') + NEXT],
  ['Expect: 100-continue', withHeader('Expect: 100-continue')],
  ['Expect: 100-Continue', withHeader('Expect: 100-Continue')],
  ['Expect: 100-continue without body', post('Expect: 100-continue\r\n', '') + NEXT],
  ['unknown expectation', withHeader('Expect: magic')],
  ['HTTP/1.0 HEAD', `HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`],
  ['TE and CL together', post('Transfer-Encoding: chunked\r\nContent-Length: 2\r\n', CHUNKED)],
  ['CL and TE together', post('Content-Length: 2\r\nTransfer-Encoding: chunked\r\n', CHUNKED)],
  ['headers over the limit', post(`X-Big: ${'b'.repeat(HEADER_LIMIT + 10)}\r\n`)],
  ['CONNECT', `CONNECT h:443 HTTP/1.1\r\n${HOST}\r\n${NEXT}`],
  ['incomplete body', post('Content-Length: 10\r\n')],
];

interface Case {
  name: string;
  bytes: Buffer;
}

function latin1(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

function corpus(): Case[] {
  const cases: Case[] = [];
  const add = (name: string, text: string) => cases.push({ name, bytes: latin1(text) });
  for (const [name, line] of REQUEST_LINES)
    add(`request line: ${name}`, `${line}\r\n${HOST}Content-Length: 2\r\n\r\n${BODY}${NEXT}`);
  for (const [name, byte] of ODD_BYTES) {
    const c = String.fromCharCode(byte);
    add(`header value: leading ${name}`, withHeader(`X-Test: ${c}v`));
    add(`header value: inner ${name}`, withHeader(`X-Test: a${c}b`));
    add(`header value: trailing ${name}`, withHeader(`X-Test: v${c}`));
  }
  const whitespaceLike = ['HTAB', 'VT', 'FF', 'SP', 'NBSP'];
  for (const [name, byte] of ODD_BYTES.filter(([name]) => whitespaceLike.includes(name))) {
    const c = String.fromCharCode(byte);
    add(`Content-Length: leading ${name}`, post(`Content-Length:${c}2\r\n`) + NEXT);
    add(`Content-Length: trailing ${name}`, post(`Content-Length: 2${c}\r\n`) + NEXT);
  }
  for (const [name, line] of HEADER_NAMES) add(`header line: ${name}`, withHeader(line));
  for (const [name, values, rest = BODY + NEXT] of CONTENT_LENGTHS) {
    const headers = values.map((value) => `Content-Length: ${value}\r\n`).join('');
    add(`Content-Length: ${name}`, post(headers, rest));
  }
  for (const [name, values] of TRANSFER_ENCODINGS) {
    const headers = values.map((value) => `Transfer-Encoding: ${value}\r\n`).join('');
    add(`Transfer-Encoding: ${name}`, post(headers, CHUNKED) + NEXT);
  }
  for (const [name, body] of CHUNK_FORMS)
    add(`chunked: ${name}`, post('Transfer-Encoding: chunked\r\n', body) + NEXT);
  for (const [name, lines] of TRAILERS)
    add(
      `trailer: ${name}`,
      post('Transfer-Encoding: chunked\r\n', `2\r\n${BODY}\r\n0\r\n${lines}\r\n`) + NEXT,
    );
  for (const [name, text] of CONNECTIONS) add(`connection: ${name}`, text);
  return cases;
}

// Where the project's reader deliberately parts from llhttp, and why (docs/security.md lists
// the same). Each must still differ.
const STRICTER_REQUEST_LINE =
  'request line: exactly "method SP target SP HTTP/1.0 or HTTP/1.1" (RFC 9112 §3); llhttp also ' +
  'takes repeated spaces, HTTP/0.9-style lines and other versions';
const ANY_METHOD =
  'any token is a method (RFC 9110 §9.1), answered 405 by the endpoint; llhttp refuses the ' +
  'ones it does not know. Framing does not depend on the method.';
const TAB_AFTER_FRAMING_VALUE =
  'a trailing HTAB after a Content-Length or Transfer-Encoding value is optional whitespace ' +
  '(RFC 9110 §5.6.3) and stripped; llhttp refuses it, a conformant proxy reads the same length';
const CHUNKED_ONLY =
  'the only transfer coding read is "chunked" alone (the endpoint decodes no other); llhttp ' +
  'frames any list ending in chunked and passes the body on undecoded';
const DELIBERATE_DIFFERENCES: Readonly<Record<string, string>> = {
  'request line: two spaces after method': STRICTER_REQUEST_LINE,
  'request line: two spaces before version': STRICTER_REQUEST_LINE,
  'request line: HTTP/2.0': STRICTER_REQUEST_LINE,
  'request line: HTTP/0.9': STRICTER_REQUEST_LINE,
  'request line: no version': STRICTER_REQUEST_LINE,
  'request line: lower-case method': ANY_METHOD,
  'request line: unknown method': ANY_METHOD,
  'Content-Length: trailing HTAB': TAB_AFTER_FRAMING_VALUE,
  'Transfer-Encoding: trailing tab': TAB_AFTER_FRAMING_VALUE,
  'Transfer-Encoding: identity, chunked': CHUNKED_ONLY,
  'Transfer-Encoding: gzip, chunked': CHUNKED_ONLY,
  'Transfer-Encoding: two headers gzip then chunked': CHUNKED_ONLY,
  'Transfer-Encoding: empty':
    'an empty Transfer-Encoding is refused (501); llhttp ignores it and frames by Content-Length',
  'connection: leading bare LF':
    'only CRLF empty lines are skipped before a request line; llhttp also skips a bare LF',
  'connection: HTTP/1.0 keep-alive pipeline':
    'an HTTP/1.0 request with "Connection: keep-alive" keeps the connection (RFC 9112 §9.3); ' +
    'node:http answers it and closes',
  'connection: CONNECT':
    'CONNECT is answered 501 and the connection closed; node:http, with no "connect" listener, ' +
    'closes it without an answer',
};

// ---------------------------------------------------------------------------------------------
// The two servers and the echo handler.

function seenHeader(seen: Seen): string {
  return Buffer.from(JSON.stringify(seen)).toString('base64');
}

function seenBy(response: RawResponse): Seen | undefined {
  const header = response.headers['x-seen'];
  return header === undefined ? undefined : JSON.parse(Buffer.from(header, 'base64').toString());
}

function outcome(responses: RawResponse[]): Outcome {
  const seen: Seen[] = [];
  let refused = false;
  for (const response of responses) {
    if (response.status < 200) continue;
    const request = seenBy(response);
    if (request) seen.push(request);
    else if (response.status >= 400 && response.headers['x-eof'] === undefined) refused = true;
  }
  return { seen, refused };
}

function startProjectServer(): HttpServer {
  return createHttpServer({
    limits: { maxHeaderSize: HEADER_LIMIT, maxBodySize: BODY_LIMIT, bodyLimitFlag: '--limit' },
    keepAliveTimeoutMs: 30_000,
    requestTimeoutMs: 30_000,
    requestTimeoutFlag: '--timeout',
    maxBufferedResponse: 1 << 20,
    maxConnections: 1000,
    overCapacity: { status: 503, body: '"busy"' },
    onOverCapacity: () => {},
    handle: ({ head, body }) => ({
      status: 200,
      headers: {
        'X-Seen': seenHeader({
          method: head.method,
          target: head.target,
          body: body.toString('base64'),
        }),
      },
      body: '"ok"',
    }),
    // A request the half-close cut short is marked as llhttp's end-of-input error is below.
    refuse: (error) => ({
      status: error.status,
      headers: error instanceof IncompleteRequestError ? { 'X-EOF': '1' } : undefined,
      body: JSON.stringify(error.message),
    }),
    onHandlerError: (error) => {
      throw error;
    },
    internalError: { status: 500, body: '"internal error"' },
  });
}

/**
 * Node's server with default options, the same echo and the same body limit. On a parse error
 * it answers 400 once the requests before the bad one are answered: Node's own handler would
 * drop those answers, which would hide from the comparison what llhttp framed before failing.
 */
function startNodeServer(): NodeServer {
  /** Per connection, the requests whose answers have not been written yet. */
  const inFlight = new Map<Socket, Set<IncomingMessage>>();
  const onAnswered = new Map<Socket, () => void>();
  /** Answers the parse error once every complete request before it is answered. */
  const settle = (socket: Socket) => {
    const waiting = [...(inFlight.get(socket) ?? [])].some((request) => request.complete);
    if (!waiting) onAnswered.get(socket)?.();
  };
  const server = createNodeServer((request, response) => {
    const socket = request.socket;
    const requests = inFlight.get(socket) ?? new Set();
    inFlight.set(socket, requests.add(request));
    response.on('close', () => {
      requests.delete(request);
      settle(socket);
    });
    let tooLarge = false;
    const refuse = () => {
      tooLarge = true;
      response.writeHead(413, { Connection: 'close' });
      response.end();
    };
    if (Number(request.headers['content-length'] ?? 0) > BODY_LIMIT) return refuse();
    const parts: Buffer[] = [];
    let size = 0;
    request.on('data', (part: Buffer) => {
      size += part.length;
      parts.push(part);
      if (size > BODY_LIMIT && !tooLarge) refuse();
    });
    request.on('end', () => {
      if (tooLarge) return;
      response.setHeader(
        'X-Seen',
        seenHeader({
          method: request.method ?? '',
          target: request.url ?? '',
          body: Buffer.concat(parts).toString('base64'),
        }),
      );
      response.end('"ok"');
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // The client half-closes after its bytes; llhttp then reports an incomplete request as an
    // error, which is the test's doing, not a refusal of what was sent.
    const eof = error.code === 'HPE_INVALID_EOF_STATE' ? 'X-EOF: 1\r\n' : '';
    onAnswered.set(socket, () => {
      onAnswered.delete(socket);
      if (!socket.writable) return socket.destroy();
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nConnection: close\r\nX-Error: ${error.code}\r\n${eof}\r\n`,
      );
    });
    settle(socket);
  });
  return server;
}

function portOf(server: { address(): AddressInfo | string | null }): number {
  return (server.address() as AddressInfo).port;
}

const bodiless = (response: RawResponse) => seenBy(response)?.method === 'HEAD';

describe('HTTP parsing compared with llhttp (node:http)', () => {
  let project: HttpServer;
  let node: NodeServer;

  beforeAll(async () => {
    project = startProjectServer();
    node = startNodeServer();
    await Promise.all(
      [project.server, node].map(
        (server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
      ),
    );
  });
  afterAll(async () => {
    await project?.close();
    node?.closeAllConnections();
    await new Promise((resolve) => node?.close(resolve));
  });

  it('frames and refuses the corpus as llhttp does, but for the documented differences', async () => {
    const cases = corpus();
    const disagreements: string[] = [];
    const undifferent: string[] = [];
    let agreements = 0;
    for (const { name, bytes } of cases) {
      const [ours, theirs] = await Promise.all([
        exchange(portOf(project.server), bytes, bodiless).then(outcome),
        exchange(portOf(node), bytes, bodiless).then(outcome),
      ]);
      const same = JSON.stringify(ours) === JSON.stringify(theirs);
      if (same) agreements++;
      if (same && name in DELIBERATE_DIFFERENCES) undifferent.push(name);
      if (!same && !(name in DELIBERATE_DIFFERENCES))
        disagreements.push(
          `${name}:\n  ours ${JSON.stringify(ours)}\n  node ${JSON.stringify(theirs)}`,
        );
    }
    const documented = cases.length - agreements - disagreements.length;
    console.log(
      `HTTP differential: ${cases.length} cases, ${agreements} agreements, ` +
        `${documented} documented differences, ${disagreements.length} undocumented`,
    );
    expect(cases.length).toBeGreaterThanOrEqual(100);
    expect(disagreements).toEqual([]);
    expect(undifferent).toEqual([]);
  });
});
