/**
 * A small HTTP/1.1 server over `node:net` for endpoints that answer short JSON requests: each
 * connection's requests are read by {@link HttpRequestReader} and answered strictly in order,
 * one at a time, with one socket write per response. Flow control: reading pauses while too many
 * pipelined requests wait or while the client is not reading its answers.
 */
import { createServer, type Server, type Socket } from 'node:net';
import {
  HttpProtocolError,
  HttpRequestReader,
  type HttpRequest,
  type HttpRequestHead,
  type ReaderEvent,
  type RequestReaderLimits,
} from './http-request-reader.js';
import { isLoopback } from './listen.js';

export interface HttpResponse {
  status: number;
  headers?: Readonly<Record<string, string>>;
  /** JSON text unless `contentType` says otherwise; omitted for bodiless answers such as 204. */
  body?: string;
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
  /** Time a client has to send a complete request head once it has started one. */
  headersTimeoutMs: number;
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
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  505: 'HTTP Version Not Supported',
};
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
/** Pipelined requests read ahead of the one being answered before reading pauses. */
const MAX_QUEUED = 64;

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

/**
 * Writes a response in one socket write (and ends the connection after it when `end`). The head
 * is Latin-1 like the request heads it answers; so is a body that is plain ASCII (most JSON),
 * which spares the UTF-8 pass over the whole text. An answer to HEAD carries the headers the
 * body would have (RFC 9110 §9.3.2) but not the body: a kept-alive client reads no body after
 * it, so sending one would be read as the start of the next response.
 */
function writeResponse(
  socket: Socket,
  response: HttpResponse,
  keepAlive: boolean,
  http10: boolean,
  end: boolean,
  answersHead = false,
): void {
  let text = `HTTP/1.1 ${response.status} ${REASONS[response.status] ?? 'Unknown'}\r\nDate: ${httpDate()}\r\n`;
  if (response.headers) {
    for (const name in response.headers) text += `${name}: ${response.headers[name]}\r\n`;
  }
  if (!keepAlive) text += 'Connection: close\r\n';
  else if (http10) text += 'Connection: keep-alive\r\n';
  let encoding: BufferEncoding = 'latin1';
  if (response.body === undefined) {
    text += '\r\n';
  } else {
    const bytes = Buffer.byteLength(response.body);
    if (bytes !== response.body.length) encoding = 'utf8';
    text += `Content-Type: ${response.contentType ?? 'application/json'}\r\nContent-Length: ${bytes}\r\n\r\n`;
    if (!answersHead) text += response.body;
  }
  if (end) socket.end(text, encoding);
  else socket.write(text, encoding);
}

class HttpConnection {
  private readonly reader: HttpRequestReader;
  private readonly queue: ReaderEvent[] = [];
  private answering = false;
  private finished = false;
  private headersTimer: NodeJS.Timeout | undefined;
  private readonly peer: Peer;

  constructor(
    private readonly socket: Socket,
    private readonly options: HttpServerOptions,
  ) {
    this.reader = new HttpRequestReader(options.limits);
    const address = socket.remoteAddress ?? '';
    this.peer = { address, loopback: isLoopback(address) };
    socket.setNoDelay(true);
    socket.setTimeout(options.keepAliveTimeoutMs, () => {
      if (!this.answering && this.queue.length === 0) socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('drain', () => this.updateFlow());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.finished = true;
      clearTimeout(this.headersTimer);
    });
  }

  private receive(chunk: Buffer): void {
    if (this.finished) return;
    for (const event of this.reader.push(chunk)) this.queue.push(event);
    this.watchHeaders();
    this.updateFlow();
    this.answer();
  }

  /** Starts the head deadline when a request head begins, clears it once the head is complete. */
  private watchHeaders(): void {
    if (!this.reader.readingHead) {
      clearTimeout(this.headersTimer);
      this.headersTimer = undefined;
    } else if (!this.headersTimer) {
      this.headersTimer = setTimeout(() => {
        this.queue.push({
          kind: 'error',
          error: new HttpProtocolError(
            408,
            `request headers not received within ${this.options.headersTimeoutMs} ms`,
          ),
        });
        this.answer();
      }, this.options.headersTimeoutMs);
    }
  }

  private updateFlow(): void {
    const hold = this.queue.length >= MAX_QUEUED || this.socket.writableNeedDrain;
    if (hold && !this.socket.isPaused()) this.socket.pause();
    else if (!hold && this.socket.isPaused() && !this.finished) this.socket.resume();
  }

  /**
   * Answers queued requests one at a time, in the order they arrived; waits only when a handler
   * answers asynchronously, and continues from its completion.
   */
  private answer(): void {
    while (!this.answering && this.queue.length > 0 && !this.finished) {
      const event = this.queue.shift() as ReaderEvent;
      if (event.kind === 'continue') {
        this.socket.write(CONTINUE);
      } else if (event.kind === 'error') {
        this.finish(this.options.refuse(event.error), false);
      } else {
        const { head } = event.request;
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
  }

  private send(head: HttpRequestHead, response: HttpResponse): void {
    if (this.finished) return;
    const answersHead = head.method === 'HEAD';
    if (head.keepAlive && !response.close)
      writeResponse(this.socket, response, true, head.http10, false, answersHead);
    else this.finish(response, head.http10, answersHead);
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
    clearTimeout(this.headersTimer);
    this.queue.length = 0;
    writeResponse(this.socket, response, false, http10, true, answersHead);
  }
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new HttpConnection(socket, options);
  });
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
