// Incremental reader of HTTP/1.1 responses on one keep-alive socket. The load generator feeds it
// every chunk the socket delivers and is told, per complete response, its status and whether the
// JSON-RPC body carries an error. It understands Content-Length and chunked bodies, which is all a
// JSON-RPC server sends; it does not build strings, so it costs little next to the server.
const HEADER_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const ERROR_MEMBER = Buffer.from('"error"');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:\s*chunked/i;

/**
 * @typedef {object} ResponseOutcome
 * @property {number} status HTTP status code.
 * @property {boolean} rpcError whether the body contains a JSON-RPC `error` member.
 */

/** Parses a stream of responses; `onResponse` is called once per complete response. */
export class ResponseReader {
  /** @param {(outcome: ResponseOutcome) => void} onResponse */
  constructor(onResponse) {
    this.onResponse = onResponse;
    this.buffer = Buffer.alloc(0);
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const consumed = this.readOne();
      if (consumed === 0) return;
      this.buffer = this.buffer.subarray(consumed);
    }
  }

  /** Reads one response from the front of the buffer; returns the bytes it used, 0 if incomplete. */
  readOne() {
    const headerEnd = this.buffer.indexOf(HEADER_END);
    if (headerEnd < 0) return 0;
    const head = this.buffer.toString('latin1', 0, headerEnd);
    const status = Number(head.slice(9, 12));
    const bodyStart = headerEnd + HEADER_END.length;
    const length = CONTENT_LENGTH.exec(head);
    if (length) {
      const end = bodyStart + Number(length[1]);
      if (this.buffer.length < end) return 0;
      this.report(status, this.buffer.subarray(bodyStart, end));
      return end;
    }
    if (CHUNKED.test(head)) return this.readChunked(status, bodyStart);
    throw new Error(`response without Content-Length or chunked body: ${head.split('\r\n')[0]}`);
  }

  /** @param {number} status @param {number} offset */
  readChunked(status, offset) {
    const parts = [];
    for (;;) {
      const lineEnd = this.buffer.indexOf(CRLF, offset);
      if (lineEnd < 0) return 0;
      const size = parseInt(this.buffer.toString('latin1', offset, lineEnd), 16);
      const dataStart = lineEnd + CRLF.length;
      if (size === 0) {
        // The last chunk is followed by optional trailers and an empty line.
        const end = this.buffer.indexOf(HEADER_END, lineEnd);
        const finalEnd = this.buffer.subarray(lineEnd, lineEnd + 4).equals(HEADER_END)
          ? lineEnd + HEADER_END.length
          : end < 0
            ? -1
            : end + HEADER_END.length;
        if (finalEnd < 0) return 0;
        this.report(status, Buffer.concat(parts));
        return finalEnd;
      }
      if (this.buffer.length < dataStart + size + CRLF.length) return 0;
      parts.push(this.buffer.subarray(dataStart, dataStart + size));
      offset = dataStart + size + CRLF.length;
    }
  }

  /** @param {number} status @param {Buffer} body */
  report(status, body) {
    this.onResponse({ status, rpcError: body.includes(ERROR_MEMBER) });
  }
}
