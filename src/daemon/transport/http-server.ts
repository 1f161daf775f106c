/**
 * A small HTTP/1.1 server over `node:net` for endpoints that answer short JSON requests: each
 * connection's requests are read by {@link HttpRequestReader} and answered strictly in order,
 * one at a time, with one socket write per response (a body in pieces is written after the
 * head in the same corked write).
 *
 * What one client can hold is bounded: reading pauses while too many pipelined requests (or too
 * many of their body bytes) wait, and the next request is not even started while the answers
 * already written wait unread above `maxBufferedResponse` bytes, so a client that pipelines
 * and never reads holds about one answer, not one per request. Every request has a deadline
 * from its first byte (an empty line before it included) to the end of its body, every
 * connection an idle timeout, and the listener a cap on connections. Deadlines are checked by
 * one sweep per server rather than a timer per request, which keeps them off the hot path.
 *
 * Reading takes turns: once the connections' reading has used `READ_SLICE_MS` of a turn of the
 * event loop, a connection that receives more pauses until the next turn. The system hands a
 * socket up to 32 reads of 64 KiB per turn, and a body of one-byte chunks is about 11 000 of them
 * per read: three such clients held the thread for 150–350 ms at a time, and every other
 * client's answer with it.
 */
import { createServer, type Server, type Socket } from 'node:net';
import {
  HttpProtocolError,
  IncompleteRequestError,
  HttpRequestReader,
  type HttpRequest,
  type HttpRequestHead,
  type ReaderEvent,
  type RequestReaderLimits,
} from './http-request-reader.js';
import { isLoopback } from './listen.js';
import { replyBytes, replyLength, replyParts } from '../rpc/reply.js';
import { TurnBudget } from '../time-slice.js';

/** Main-thread time all connections' reading may take per turn of the event loop, in ms. */
const READ_SLICE_MS = 5;
const READ_TURN = new TurnBudget(READ_SLICE_MS);

export interface HttpResponse {
  status: number;
  headers?: Readonly<Record<string, string>>;
  /**
   * JSON text unless `contentType` says otherwise; omitted for bodiless answers such as 204. A
   * large body may come as pieces, written one after another without being joined first.
   */
  body?: string | readonly string[];
  /** Default `application/json`. */
  contentType?: string;
  /** Close the connection after this response. */
  close?: boolean;
}

/** The other end of a connection, worked out once per connection. */
export interface Peer {
  address: string;
  loopback: boolean;
}

export interface HttpServerOptions {
  limits: RequestReaderLimits;
  /** Idle time after which a kept-alive connection is closed. */
  keepAliveTimeoutMs: number;
  /** Time a client has to send a whole request (head and body) once it has started one. */
  requestTimeoutMs: number;
  /** The option that sets `requestTimeoutMs`, named in the 408 answer. */
  requestTimeoutFlag: string;
  /** Unsent answer bytes on a connection above which its next request waits. */
  maxBufferedResponse: number;
  /** Most open connections; more are answered 503 and closed. */
  maxConnections: number;
  /** The answer to a connection over `maxConnections`. */
  overCapacity: HttpResponse;
  /** Called when a connection is refused for the cap, at most once until one closes. */
  onOverCapacity(): void;
  /** May answer synchronously; cheap requests then skip the promise machinery. */
  handle(request: HttpRequest, peer: Peer): HttpResponse | Promise<HttpResponse>;
  /** The answer to a request the reader refused; the connection closes after it. */
  refuse(error: HttpProtocolError): HttpResponse;
  /** A handler that threw: answered with `internalError`, reported here. */
  onHandlerError(error: unknown): void;
  internalError: HttpResponse;
}

export interface HttpServer {
  server: Server;
  /** Stops accepting and closes every open connection. */
  close(): Promise<void>;
}

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  505: 'HTTP Version Not Supported',
};
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
/** Pipelined requests read ahead of the one being answered before reading pauses. */
const MAX_QUEUED = 64;
/** How often the deadlines of a server's connections are checked. */
const DEADLINE_SWEEP_MS = 500;
/**
 * How long a connection closed after an error answer stays open unread before it is destroyed:
 * destroying it with request bytes unread would reset it and could lose the answer.
 */
const LINGER_MS = 2000;

let dateSecond = 0;
let dateText = '';

/** The `Date` header, formatted at most once a second. */
function httpDate(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

interface ResponseText {
  text: string;
  encoding: BufferEncoding;
  /** The body's pieces, written after `text` (which is then the head), when it came in pieces. */
  pieces?: readonly string[];
}

/**
 * A response as the text of one socket write, or its head and the pieces of its body. The head
 * is Latin-1 like the request heads it answers; so is a body that is plain ASCII (most JSON),
 * which spares the UTF-8 pass over the whole text. An answer to HEAD carries the headers the
 * body would have (RFC 9110 §9.3.2) but not the body: a kept-alive client reads no body after
 * it, so sending one would be read as the start of the next response.
 */
function responseText(
  response: HttpResponse,
  keepAlive: boolean,
  http10: boolean,
  answersHead = false,
): ResponseText {
  let text = `HTTP/1.1 ${response.status} ${REASONS[response.status] ?? 'Unknown'}\r\nDate: ${httpDate()}\r\n`;
  if (response.headers) {
    for (const name in response.headers) text += `${name}: ${response.headers[name]}\r\n`;
  }
  if (!keepAlive) text += 'Connection: close\r\n';
  else if (http10) text += 'Connection: keep-alive\r\n';
  const { body } = response;
  if (body === undefined) return { text: `${text}\r\n`, encoding: 'latin1' };
  const bytes = replyBytes(body);
  // As many bytes as characters: plain ASCII.
  const encoding: BufferEncoding = bytes === replyLength(body) ? 'latin1' : 'utf8';
  text += `Content-Type: ${response.contentType ?? 'application/json'}\r\nContent-Length: ${bytes}\r\n\r\n`;
  if (answersHead) return { text, encoding: 'latin1' };
  if (typeof body === 'string') return { text: text + body, encoding };
  return { text, encoding, pieces: body };
}

/**
 * Writes `response` to `socket`: one write, or the head with the first part of the body
 * (`replyParts`), then each further part once the socket has taken the ones before ('drain'),
 * so a large answer is held a part at a time, not whole in the socket's queue. Answers whether
 * all of it has been handed to the socket; if not, `whenWritten` is called once it has been (never
 * if the socket is destroyed first).
 */
function writeResponse(socket: Socket, response: ResponseText, whenWritten: () => void): boolean {
  const { text, encoding, pieces } = response;
  if (pieces === undefined) {
    socket.write(text, encoding);
    return true;
  }
  const parts = replyParts(pieces);
  socket.cork();
  socket.write(text, 'latin1');
  let part = parts.next();
  if (!part.done) socket.write(part.value, encoding);
  socket.uncork();
  part = parts.next();
  if (part.done) return true;
  let pending = part.value;
  /** Writes parts while the socket takes them; true once the last one is written. */
  const writeParts = (): boolean => {
    for (;;) {
      const taken = socket.write(pending, encoding);
      part = parts.next();
      if (part.done) return true;
      pending = part.value;
      if (!taken) return false;
    }
  };
  const resume = (): void => {
    if (socket.destroyed) return;
    if (writeParts()) whenWritten();
    else socket.once('drain', resume);
  };
  if (!socket.writableNeedDrain && writeParts()) return true;
  socket.once('drain', resume);
  return false;
}

/**
 * Ends the connection after `response`, reading nothing more. The socket is destroyed once it
 * has taken nothing for a grace time.
 */
function closeAfter(socket: Socket, response: ResponseText): void {
  socket.pause();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.on('drain', () => linger.refresh());
  socket.once('close', () => clearTimeout(linger));
  if (writeResponse(socket, response, () => socket.end())) socket.end();
}

class HttpConnection {
  private readonly reader: HttpRequestReader;
  private readonly queue: ReaderEvent[] = [];
  /** Body bytes of the queued requests. */
  private queuedBytes = 0;
  private answering = false;
  private finished = false;
  /** The client has closed its side: what it sent is answered, then the connection ends. */
  private peerEnded = false;
  /** Paused until the next turn: the turn's reading budget is spent. */
  private yielding = false;
  /** When the request being read began; undefined between requests. */
  private requestStart: number | undefined;
  /** When the connection last became idle; undefined while a request is read or answered. */
  private idleSince: number | undefined;
  private timedOut = false;
  /** Since when the client has read none of the answers waiting for it; and how far it had read. */
  private stalledSince: number | undefined;
  private flushedAtStall = 0;
  private readonly peer: Peer;

  constructor(
    private readonly socket: Socket,
    private readonly options: HttpServerOptions,
  ) {
    this.reader = new HttpRequestReader(options.limits);
    const address = socket.remoteAddress ?? '';
    this.peer = { address, loopback: isLoopback(address) };
    this.idleSince = Date.now();
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('drain', () => {
      this.updateFlow();
      this.answer();
    });
    socket.on('error', () => socket.destroy());
    socket.on('end', () => this.endOfInput());
    socket.on('close', () => {
      this.finished = true;
    });
  }

  /**
   * The client has closed its sending side (the server is half-open, so answers can still go
   * out): the requests it completed are answered, one it left unfinished gets a 400, and then
   * the connection ends.
   */
  private endOfInput(): void {
    this.peerEnded = true;
    if (this.reader.readingRequest) {
      this.enqueue({ kind: 'error', error: new IncompleteRequestError() });
    }
    this.answer();
  }

  /** Enforces the request deadline and the idle timeout; called by the server's sweep. */
  checkDeadlines(now: number): void {
    if (this.finished) return;
    const { requestTimeoutMs, keepAliveTimeoutMs } = this.options;
    if (this.requestStart !== undefined && now - this.requestStart >= requestTimeoutMs) {
      // A client that is not even reading its answers gets no 408 it would not read either.
      if (this.timedOut || this.writeBlocked()) {
        this.socket.destroy();
        return;
      }
      this.timedOut = true;
      this.enqueue({
        kind: 'error',
        error: new HttpProtocolError(
          408,
          `request not received within ${requestTimeoutMs} ms (${this.options.requestTimeoutFlag})`,
        ),
      });
      this.answer();
    } else if (this.idleSince !== undefined && now - this.idleSince >= keepAliveTimeoutMs) {
      this.socket.destroy();
    } else if (this.readerStalled(now) >= keepAliveTimeoutMs) {
      this.socket.destroy();
    }
  }

  /** How long answers have waited while the client read none of them (0 while it reads). */
  private readerStalled(now: number): number {
    const flushed = this.socket.bytesWritten - this.socket.writableLength;
    if (this.socket.writableLength === 0 || flushed !== this.flushedAtStall) {
      this.stalledSince = this.socket.writableLength === 0 ? undefined : now;
      this.flushedAtStall = flushed;
      return 0;
    }
    this.stalledSince ??= now;
    return now - this.stalledSince;
  }

  private receive(chunk: Buffer): void {
    if (this.finished) return;
    this.idleSince = undefined;
    for (const event of this.reader.push(chunk)) this.enqueue(event);
    if (!this.reader.readingRequest) this.requestStart = undefined;
    else if (this.requestStart === undefined) this.requestStart = Date.now();
    this.updateFlow();
    this.answer();
    if (!this.finished && READ_TURN.spent()) this.yieldTurn();
  }

  /** Stops reading for the rest of this turn; reading resumes (flow allowing) in the next. */
  private yieldTurn(): void {
    if (this.yielding) return;
    this.yielding = true;
    this.socket.pause();
    setImmediate(() => {
      this.yielding = false;
      this.updateFlow();
    });
  }

  private enqueue(event: ReaderEvent): void {
    if (event.kind === 'request') this.queuedBytes += event.request.body.length;
    this.queue.push(event);
  }

  /** Whether answers already written wait unread above the bound. */
  private writeBlocked(): boolean {
    return (
      this.socket.writableNeedDrain &&
      this.socket.writableLength >= this.options.maxBufferedResponse
    );
  }

  private updateFlow(): void {
    const hold =
      this.queue.length >= MAX_QUEUED ||
      this.queuedBytes >= this.options.limits.maxBodySize ||
      this.socket.writableNeedDrain;
    if (hold && !this.socket.isPaused()) this.socket.pause();
    else if (!hold && this.socket.isPaused() && !this.finished && !this.yielding) {
      this.socket.resume();
    }
  }

  /**
   * Answers queued requests one at a time, in the order they arrived; waits when a handler
   * answers asynchronously (and continues from its completion) and while the client leaves
   * too much of its answers unread (and continues on 'drain').
   */
  private answer(): void {
    while (!this.answering && this.queue.length > 0 && !this.finished && !this.writeBlocked()) {
      const event = this.queue.shift() as ReaderEvent;
      if (event.kind === 'continue') {
        this.socket.write(CONTINUE);
      } else if (event.kind === 'error') {
        this.finish(this.options.refuse(event.error), false);
      } else {
        const { head, body } = event.request;
        this.queuedBytes -= body.length;
        const response = this.respond(event.request);
        if (response instanceof Promise) {
          this.answering = true;
          void response.then((settled) => {
            this.answering = false;
            this.send(head, settled);
            this.answer();
          });
          return;
        }
        this.send(head, response);
      }
    }
    if (!this.answering && this.queue.length === 0 && this.requestStart === undefined)
      this.idleSince = Date.now();
    if (this.peerEnded && !this.answering && this.queue.length === 0 && !this.finished) {
      this.finished = true;
      this.socket.end();
    }
  }

  private send(head: HttpRequestHead, response: HttpResponse): void {
    if (this.finished) return;
    const answersHead = head.method === 'HEAD';
    if (head.keepAlive && !response.close) {
      const text = responseText(response, true, head.http10, answersHead);
      // The next request is answered once this answer is all with the socket.
      this.answering = !writeResponse(this.socket, text, () => {
        this.answering = false;
        this.updateFlow();
        this.answer();
      });
    } else {
      this.finish(response, head.http10, answersHead);
    }
    this.updateFlow();
  }

  /** The handler's answer; a handler that throws or rejects gets the internal-error answer. */
  private respond(request: HttpRequest): HttpResponse | Promise<HttpResponse> {
    try {
      const response = this.options.handle(request, this.peer);
      return response instanceof Promise ? response.catch((error) => this.failed(error)) : response;
    } catch (error) {
      return this.failed(error);
    }
  }

  private failed(error: unknown): HttpResponse {
    this.options.onHandlerError(error);
    return this.options.internalError;
  }

  private finish(response: HttpResponse, http10: boolean, answersHead = false): void {
    if (this.finished || this.socket.destroyed) return;
    this.finished = true;
    this.queue.length = 0;
    closeAfter(this.socket, responseText(response, false, http10, answersHead));
  }
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const sockets = new Set<Socket>();
  const connections = new Set<HttpConnection>();
  let refusing = false;
  let refused = 0;
  // Half-open: a client that closes its sending side after a request still gets the answer.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    if (connections.size >= options.maxConnections) {
      if (!refusing) options.onOverCapacity();
      refusing = true;
      // Refused connections linger to deliver the 503; a flood of them gets no answer at all.
      if (refused >= options.maxConnections) {
        socket.destroy();
        return;
      }
      refused++;
      socket.once('close', () => refused--);
      closeAfter(socket, responseText(options.overCapacity, false, false));
      return;
    }
    const connection = new HttpConnection(socket, options);
    connections.add(connection);
    socket.once('close', () => {
      connections.delete(connection);
      refusing = false;
    });
  });
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const connection of connections) connection.checkDeadlines(now);
  }, DEADLINE_SWEEP_MS).unref();
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
