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
  'content-encoding': string | undefined;
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

/** The client closed its sending side in the middle of a request: answered 400. */
export class IncompleteRequestError extends HttpProtocolError {
  constructor() {
    super(400, 'the client closed its side before the request was complete');
    this.name = 'IncompleteRequestError';
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
/** RFC 9110 §5.6.2. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** RFC 9110 §5.6.4: qdtext or a backslash-escaped character, obs-text included. */
const QUOTED_STRING = '"(?:[\\t !#-\\[\\]-~\\x80-\\xff]|\\\\[\\t -~\\x80-\\xff])*"';
/** A request target is visible ASCII: llhttp refuses controls, DEL and bytes above 0x7F. */
const REQUEST_LINE = new RegExp(`^(${TOKEN}) ([\\x21-\\x7e]+) HTTP/(\\d)\\.(\\d)$`);
const HEADER_NAME = new RegExp(`^${TOKEN}$`);
const DECIMAL = /^\d+$/;
/**
 * A field value (RFC 9110 §5.5): HTAB, visible ASCII, SP, and text above 0x7F (obs-text, which
 * llhttp allows too); so no other control character and no DEL. (The head is decoded as
 * Latin-1, one character per byte.) Anchored, this is the fastest form of the check in V8.
 */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * A chunk size (leading zeros allowed, at most 8 significant hex digits) and its extensions
 * (RFC 9112 §7.1.1), with no whitespace around `;` or `=`, as llhttp reads them.
 */
const CHUNK_SIZE = new RegExp(
  `^0*([0-9A-Fa-f]{1,8})(?:;${TOKEN}(?:=(?:${TOKEN}|${QUOTED_STRING}))?)*$`,
);
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

/** One header or trailer field line, split and checked. */
interface FieldLine {
  /** In lower case. */
  name: string;
  value: string;
}

/**
 * Splits `name: value` per RFC 9110 §5: the name a token right before the colon, the value with
 * only SP and HTAB stripped around it (not VT, FF or NBSP, which `String.trim` would also take),
 * and no control characters in it. A line that starts with whitespace is an obs-fold
 * continuation, refused as llhttp refuses it. `line` numbers the line in the error.
 */
function parseFieldLine(text: string, start: number, end: number, line: number): FieldLine {
  const first = text.charCodeAt(start);
  if (first === 0x20 || first === 0x09) throw badRequest(`folded header line ${line} (obs-fold)`);
  const colon = text.indexOf(':', start);
  const name = colon > start && colon < end ? text.slice(start, colon) : '';
  if (!HEADER_NAME.test(name)) throw badRequest(`malformed header line ${line}`);
  let valueStart = colon + 1;
  let valueEnd = end;
  while (valueStart < valueEnd && isOptionalWhitespace(text.charCodeAt(valueStart))) valueStart++;
  while (valueEnd > valueStart && isOptionalWhitespace(text.charCodeAt(valueEnd - 1))) valueEnd--;
  const value = text.slice(valueStart, valueEnd);
  if (!FIELD_VALUE.test(value)) throw badRequest(`invalid character in header ${name}`);
  return { name: name.toLowerCase(), value };
}

function isOptionalWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** Parses the request line and header block (without the blank line that ends it). */
function parseHead(text: string): HttpRequestHead {
  let lineEnd = text.indexOf('\r\n');
  if (lineEnd < 0) lineEnd = text.length;
  const requestLine = REQUEST_LINE.exec(text.slice(0, lineEnd));
  if (!requestLine) throw badRequest('malformed request line');
  const [, method, target, major, minor] = requestLine;
  if (major !== '1' || (minor !== '0' && minor !== '1'))
    throw new HttpProtocolError(505, `HTTP version ${major}.${minor} not supported`);
  // CONNECT turns the connection into a tunnel (llhttp stops parsing there): reading the bytes
  // after it as further requests would be a desync with any proxy that tunnels them.
  if (method === 'CONNECT') throw new HttpProtocolError(501, 'method CONNECT not supported');
  const headers: RequestHeaders = {
    host: undefined,
    'content-type': undefined,
    'content-encoding': undefined,
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
    const { name, value } = parseFieldLine(text, start, lineEnd, line);
    // Only the headers of RequestHeaders are kept; a literal switch avoids hashing every name.
    switch (name) {
      case 'host':
        headers.host = joined(headers.host, value);
        break;
      case 'content-type':
        headers['content-type'] = joined(headers['content-type'], value);
        break;
      case 'content-encoding':
        headers['content-encoding'] = joined(headers['content-encoding'], value);
        break;
      case 'content-length':
        // Refused even when equal (RFC 9112 §6.3 allows either), as llhttp refuses it: a
        // proxy that takes the other choice then never sees a request this server frames.
        if (headers['content-length'] !== undefined)
          throw badRequest('more than one Content-Length header');
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

/** Whether `bytes` from `start` hold an LF that does not follow a CR. */
function hasBareLineFeed(bytes: Buffer, start: number): boolean {
  for (let at = bytes.indexOf(LF, start); at >= 0; at = bytes.indexOf(LF, at + 1)) {
    if (at === start || bytes[at - 1] !== CR) return true;
  }
  return false;
}

/**
 * Checks one trailer field line with the header rules. Trailers are read past, never merged into
 * the headers, so none can change how this request was framed; the framing fields themselves are
 * refused there (RFC 9110 §6.5.1), as llhttp refuses them.
 */
function checkTrailer(line: string, number: number): void {
  const { name } = parseFieldLine(line, 0, line.length, number);
  if (name === 'content-length' || name === 'transfer-encoding')
    throw badRequest(`${name} not allowed in trailers`);
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
  private trailerLines = 0;
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
      // A head whose lines end in bare LF would never be complete here: refuse it now, as
      // llhttp does, rather than wait for the head deadline.
      if (hasBareLineFeed(this.pending, start)) throw badRequest('line ended by LF without CR');
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
      // With no CRLF ahead, any LF is a bare one: refused now, as llhttp refuses it.
      if (this.pending.indexOf(LF, this.offset) >= 0)
        throw badRequest(`${what} ended by LF without CR`);
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
      this.trailerLines = 0;
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
    else checkTrailer(line, ++this.trailerLines);
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
