/**
 * Sends raw bytes over one TCP connection and reads every HTTP response the server writes
 * before closing it. The client half-closes after writing, so a server that waits for more
 * bytes of an incomplete request sees the end of the stream instead of a timeout.
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers are joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export async function exchange(
  port: number,
  bytes: Buffer,
  bodiless?: (response: RawResponse) => boolean,
): Promise<RawResponse[]> {
  const received = await new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    socket.on('data', (part: Buffer) => parts.push(part));
    // A server that refuses while the client is still writing may reset the connection; what
    // it wrote before is still what the client reads.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => resolve(Buffer.concat(parts)));
  });
  return parseResponses(received, bodiless);
}

/**
 * Splits a response stream: bodies are framed by Content-Length; a response without it runs to
 * the end of the stream, except 1xx, 204 and 304, and answers to HEAD (marked by the caller's
 * `bodiless` predicate), which have none.
 */
export function parseResponses(
  stream: Buffer,
  bodiless: (response: RawResponse) => boolean = () => false,
): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  while (offset < stream.length) {
    const end = stream.indexOf('\r\n\r\n', offset);
    if (end < 0) throw new Error(`truncated response head: ${stream.toString('latin1', offset)}`);
    const [statusLine, ...lines] = stream.toString('latin1', offset, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (!Number.isInteger(status)) throw new Error(`malformed status line: ${statusLine}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    offset = end + 4;
    const response: RawResponse = { status, headers, body: Buffer.alloc(0) };
    const noBody = status < 200 || status === 204 || status === 304 || bodiless(response);
    if (!noBody) {
      const length = headers['content-length'];
      const bodyEnd = length === undefined ? stream.length : offset + Number(length);
      response.body = stream.subarray(offset, bodyEnd);
      offset = bodyEnd;
    }
    responses.push(response);
  }
  return responses;
}
