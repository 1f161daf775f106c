/**
 * An incremental, strict HTTP/1.1 request reader for the JSON-RPC endpoint: bytes in, complete
 * requests out, in order (pipelining included). It frames bodies by `Content-Length` or chunked
 * transfer coding and enforces the header and body limits while reading, so an oversized request
 * never costs more than the limit in memory. Anything ambiguous (both framings, conflicting
 * lengths, folded or malformed header lines) is refused rather than guessed at, which is what
 * keeps request smuggling out.
 *
 * It exists because Node's `http` server spends more CPU per request than the whole node's
 * budget for a small JSON-RPC call (docs/benchmarks.md); this reader does only what the
 * endpoint needs. For the same reason it walks the received bytes with an offset rather than
 * slicing them at every step, and remembers the heads it has parsed: a client sends the same
 * head again and again (only the body changes), and parsing it was the reader's largest cost.
 */
import { BodyBuffer } from './body-buffer.js';

/**
 * The request headers the server acts on; others are read past. Repeated headers are joined
 * with ", " (RFC 9110 list syntax).
 */
export interface RequestHeaders {
  host: string | undefined;
  'content-type': string | undefined;
  'content-length': string | undefined;
  'transfer-encoding': string | undefined;
  connection: string | undefined;
  expect: string | undefined;
  origin: string | undefined;
  authorization: string | undefined;
}

export interface HttpRequestHead {
  method: string;
  target: string;
  headers: Readonly<RequestHeaders>;
  /** Whether the connection stays open after this request's response. */
  keepAlive: boolean;
  /** HTTP/1.0 clients need `Connection: keep-alive` echoed to keep the connection. */
  http10: boolean;
}

export interface HttpRequest {
  head: HttpRequestHead;
  body: Buffer;
}

/** A request the connection cannot go on from: answer with `status`, then close. */
export class HttpProtocolError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpProtocolError';
  }
}

export interface RequestReaderLimits {
  /** Largest request line plus headers, in bytes. */
  maxHeaderSize: number;
  /** Largest body, in bytes; the error names `bodyLimitFlag`. */
  maxBodySize: number;
  bodyLimitFlag: string;
}

export type ReaderEvent =
  | { kind: 'request'; request: HttpRequest }
  /** The client sent `Expect: 100-continue` and its head was accepted. */
  | { kind: 'continue' }
  | { kind: 'error'; error: HttpProtocolError };

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'failed';

const CR = 13;
const LF = 10;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/(\d)\.(\d)$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const DECIMAL = /^\d+$/;
const INVALID_VALUE = /[\r\n\0]/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,8})(?:[ \t]*;.*)?$/;
const MAX_CHUNK_LINE = 1024;
/** Value of each hex digit by its byte. */
const HEX_VALUE: Readonly<Record<number, number>> = Object.fromEntries(
  [...'0123456789abcdef'].flatMap((char, value) => [
    [char.charCodeAt(0), value],
    [char.toUpperCase().charCodeAt(0), value],
  ]),
);
/** Heads longer than this are parsed every time (browsers' and proxies' heads). */
const MAX_REMEMBERED_HEAD = 1024;
/** Parsed heads kept; the whole set is dropped when full (there are few distinct heads). */
const REMEMBERED_HEADS = 256;

/**
 * Parsed heads by their text, shared by all connections: a head's parse depends on nothing
 * else, and a parsed head is never changed (it is `Readonly`), so one object can serve them all.
 */
const rememberedHeads = new Map<string, HttpRequestHead>();

function parseHeadOnce(text: string): HttpRequestHead {
  if (text.length > MAX_REMEMBERED_HEAD) return parseHead(text);
  let head = rememberedHeads.get(text);
  if (head === undefined) {
    head = parseHead(text);
    if (rememberedHeads.size >= REMEMBERED_HEADS) rememberedHeads.clear();
    rememberedHeads.set(text, head);
  }
  return head;
}

function badRequest(message: string): HttpProtocolError {
  return new HttpProtocolError(400, `bad request: ${message}`);
}

/** Parses the request line and header block (without the blank line that ends it). */
function parseHead(text: string): HttpRequestHead {
  let lineEnd = text.indexOf('\r\n');
  if (lineEnd < 0) lineEnd = text.length;
  const requestLine = REQUEST_LINE.exec(text.slice(0, lineEnd));
  if (!requestLine) throw badRequest('malformed request line');
  const [, method, target, major, minor] = requestLine;
  if (major !== '1')
    throw new HttpProtocolError(505, `HTTP version ${major}.${minor} not supported`);
  const headers: RequestHeaders = {
    host: undefined,
    'content-type': undefined,
    'content-length': undefined,
    'transfer-encoding': undefined,
    connection: undefined,
    expect: undefined,
    origin: undefined,
    authorization: undefined,
  };
  let line = 1;
  while (lineEnd < text.length) {
    const start = lineEnd + 2;
    lineEnd = text.indexOf('\r\n', start);
    if (lineEnd < 0) lineEnd = text.length;
    const colon = text.indexOf(':', start);
    const name = colon > start && colon < lineEnd ? text.slice(start, colon) : '';
    if (!HEADER_NAME.test(name)) throw badRequest(`malformed header line ${line}`);
    const value = text.slice(colon + 1, lineEnd).trim();
    if (INVALID_VALUE.test(value)) throw badRequest(`invalid character in header ${name}`);
    // Only the headers of RequestHeaders are kept; a literal switch avoids hashing every name.
    switch (name.toLowerCase()) {
      case 'host':
        headers.host = joined(headers.host, value);
        break;
      case 'content-type':
        headers['content-type'] = joined(headers['content-type'], value);
        break;
      case 'content-length':
        if (headers['content-length'] !== undefined && headers['content-length'] !== value)
          throw badRequest('conflicting Content-Length headers');
        headers['content-length'] = value;
        break;
      case 'transfer-encoding':
        headers['transfer-encoding'] = joined(headers['transfer-encoding'], value);
        break;
      case 'connection':
        headers.connection = joined(headers.connection, value);
        break;
      case 'expect':
        headers.expect = joined(headers.expect, value);
        break;
      case 'origin':
        headers.origin = joined(headers.origin, value);
        break;
      case 'authorization':
        headers.authorization = joined(headers.authorization, value);
        break;
    }
    line++;
  }
  const http10 = minor === '0';
  if (!http10 && headers.host === undefined) throw badRequest('missing Host header');
  return { method, target, headers, keepAlive: keepsAlive(headers.connection, http10), http10 };
}

function joined(existing: string | undefined, value: string): string {
  return existing === undefined ? value : `${existing}, ${value}`;
}

/** Whether the connection persists: HTTP/1.1 unless told to close, HTTP/1.0 only if asked. */
function keepsAlive(connection: string | undefined, http10: boolean): boolean {
  if (connection === undefined) return !http10;
  if (connection === 'keep-alive') return true;
  const tokens = connection
    .toLowerCase()
    .split(',')
    .map((token) => token.trim());
  return http10 ? tokens.includes('keep-alive') : !tokens.includes('close');
}

export class HttpRequestReader {
  /** Received bytes; those before `offset` are consumed. */
  private pending: Buffer = Buffer.alloc(0);
  private offset = 0;
  private state: State = 'head';
  private head: HttpRequestHead | undefined;
  private remaining = 0;
  /** A body that arrived in one piece: a view of the received bytes, not copied. */
  private wholeBody: Buffer | undefined;
  /** A body that arrived in pieces, copied into one buffer as they come. */
  private readonly body: BodyBuffer;
  private bodySize = 0;
  private trailerSize = 0;
  /** Bytes of empty lines read before the current request line. */
  private blankLineBytes = 0;

  constructor(private readonly limits: RequestReaderLimits) {
    this.body = new BodyBuffer(limits.maxBodySize);
  }

  /**
   * True from the first byte of a request (an empty line before it included) until the request
   * is complete: the span its deadline covers.
   */
  get readingRequest(): boolean {
    return this.state !== 'head' || this.pending.length > this.offset || this.blankLineBytes > 0;
  }

  /** Feeds received bytes; returns what they completed, in order. */
  push(chunk: Buffer): ReaderEvent[] {
    if (this.state === 'failed') return [];
    this.pending =
      this.offset === this.pending.length
        ? chunk
        : Buffer.concat([this.pending.subarray(this.offset), chunk]);
    this.offset = 0;
    const events: ReaderEvent[] = [];
    try {
      while (this.step(events));
    } catch (error) {
      if (!(error instanceof HttpProtocolError)) throw error;
      this.state = 'failed';
      this.pending = Buffer.alloc(0);
      this.offset = 0;
      this.wholeBody = undefined;
      this.body.take();
      events.push({ kind: 'error', error });
    }
    return events;
  }

  /** Consumes what it can of `pending` for the current state; false when it needs more bytes. */
  private step(events: ReaderEvent[]): boolean {
    switch (this.state) {
      case 'head':
        return this.readHead(events);
      case 'length':
        return this.readBody(events, 'length');
      case 'chunk-size':
        return this.readChunkSize();
      case 'chunk-data':
        return this.readBody(events, 'chunk-end');
      case 'chunk-end':
        return this.readChunkEnd();
      case 'trailers':
        return this.readTrailer(events);
      case 'failed':
        return false;
    }
  }

  private readHead(events: ReaderEvent[]): boolean {
    // RFC 9112 lets a server ignore empty lines before a request line. They count toward the
    // head's size (and, through readingRequest, its deadline), so they cannot keep a
    // connection open or busy for free.
    let start = this.offset;
    while (this.pending[start] === CR && this.pending[start + 1] === LF) start += 2;
    this.blankLineBytes += start - this.offset;
    this.offset = start;
    const end = this.pending.indexOf(HEAD_END, start);
    if (end < 0 || end - start + this.blankLineBytes > this.limits.maxHeaderSize) {
      if (this.pending.length - start + this.blankLineBytes > this.limits.maxHeaderSize) {
        throw new HttpProtocolError(
          431,
          `request headers too large: the limit is ${this.limits.maxHeaderSize} bytes`,
        );
      }
      return false;
    }
    const head = parseHeadOnce(this.pending.toString('latin1', start, end));
    this.offset = end + HEAD_END.length;
    this.head = head;
    this.blankLineBytes = 0;
    this.bodySize = 0;
    this.frameBody(head, events);
    return true;
  }

  private frameBody(head: HttpRequestHead, events: ReaderEvent[]): void {
    const { headers } = head;
    const encoding = headers['transfer-encoding'];
    const length = headers['content-length'];
    if (encoding !== undefined) {
      if (length !== undefined)
        throw badRequest('both Transfer-Encoding and Content-Length are present');
      if (encoding.toLowerCase() !== 'chunked')
        throw new HttpProtocolError(501, `transfer encoding "${encoding}" not supported`);
      this.state = 'chunk-size';
    } else if (length !== undefined) {
      if (!DECIMAL.test(length)) throw badRequest(`invalid Content-Length "${length}"`);
      const size = Number(length);
      if (size > this.limits.maxBodySize) throw this.bodyTooLarge();
      this.remaining = size;
      this.state = 'length';
    } else {
      this.remaining = 0;
      this.state = 'length';
    }
    const expect = headers.expect;
    if (expect !== undefined) {
      if (expect.toLowerCase() !== '100-continue')
        throw new HttpProtocolError(417, `expectation "${expect}" not supported`);
      if (this.state !== 'length' || this.remaining > 0) events.push({ kind: 'continue' });
    }
  }

  private bodyTooLarge(): HttpProtocolError {
    return new HttpProtocolError(
      413,
      `request body too large: the limit is ${this.limits.maxBodySize} bytes (${this.limits.bodyLimitFlag})`,
    );
  }

  /** Takes up to `remaining` body bytes; moves to `next` (or completes) when all have come. */
  private readBody(events: ReaderEvent[], next: 'length' | 'chunk-end'): boolean {
    if (this.remaining > 0) {
      const available = this.pending.length - this.offset;
      if (available === 0) return false;
      const taken = Math.min(this.remaining, available);
      const end = this.offset + taken;
      if (next === 'length' && taken === this.remaining && this.body.size === 0)
        this.wholeBody = this.pending.subarray(this.offset, end);
      else this.body.append(this.pending, this.offset, end);
      this.offset = end;
      this.remaining -= taken;
      if (this.remaining > 0) return false;
    }
    if (next === 'length') this.complete(events);
    else this.state = 'chunk-end';
    return true;
  }

  private readLine(limit: number, what: string): string | undefined {
    const end = this.pending.indexOf(CRLF, this.offset);
    if (end < 0) {
      if (this.pending.length - this.offset > limit) throw badRequest(`${what} too long`);
      return undefined;
    }
    if (end - this.offset > limit) throw badRequest(`${what} too long`);
    const line = this.pending.toString('latin1', this.offset, end);
    this.offset = end + CRLF.length;
    return line;
  }

  private readChunkSize(): boolean {
    let size = this.plainChunkSize();
    if (size === undefined) {
      const line = this.readLine(MAX_CHUNK_LINE, 'chunk size line');
      if (line === undefined) return false;
      const match = CHUNK_SIZE.exec(line);
      if (!match) throw badRequest('malformed chunk size');
      size = parseInt(match[1], 16);
    }
    if (size === 0) {
      this.trailerSize = 0;
      this.state = 'trailers';
      return true;
    }
    this.bodySize += size;
    if (this.bodySize > this.limits.maxBodySize) throw this.bodyTooLarge();
    this.remaining = size;
    this.state = 'chunk-data';
    return true;
  }

  /**
   * The size of a chunk whose size line is only hex digits and CRLF (the common case), read
   * straight from the bytes; undefined for anything else, which the general path handles. A
   * body sent as one-byte chunks has a size line per byte, and this keeps each cheap.
   */
  private plainChunkSize(): number | undefined {
    const bytes = this.pending;
    let size = 0;
    let at = this.offset;
    for (; at < bytes.length && at - this.offset < 8; at++) {
      const digit = HEX_VALUE[bytes[at]];
      if (digit === undefined) break;
      size = size * 16 + digit;
    }
    if (at === this.offset || bytes[at] !== CR || bytes[at + 1] !== LF) return undefined;
    this.offset = at + CRLF.length;
    return size;
  }

  private readChunkEnd(): boolean {
    if (this.pending.length - this.offset < CRLF.length) return false;
    if (this.pending[this.offset] !== CR || this.pending[this.offset + 1] !== LF)
      throw badRequest('chunk data longer than its size');
    this.offset += CRLF.length;
    this.state = 'chunk-size';
    return true;
  }

  private readTrailer(events: ReaderEvent[]): boolean {
    const room = this.limits.maxHeaderSize - this.trailerSize;
    const line = this.readLine(room, 'trailer section');
    if (line === undefined) return false;
    this.trailerSize += line.length + CRLF.length;
    if (line.length === 0) this.complete(events);
    return true;
  }

  private complete(events: ReaderEvent[]): void {
    const head = this.head as HttpRequestHead;
    const body = this.wholeBody ?? this.body.take();
    events.push({ kind: 'request', request: { head, body } });
    this.head = undefined;
    this.wholeBody = undefined;
    this.state = 'head';
  }
}
