import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { RestClient } from '../../src/client/rest-client.js';
import { RequestTimeoutError } from '../../src/client/errors.js';

const TIMEOUT_MS = 400;

/** Answers like the storage routes, but stalls where the test needs it. */
function handle(request: IncomingMessage, response: ServerResponse): void {
  const path = request.url ?? '';
  if (path.includes('/files/stalls-in-body/raw')) {
    response.writeHead(200, { 'content-length': '100' });
    response.write('x'.repeat(10));
  } else if (path.includes('/files/never/raw')) {
    // Never answers.
  } else if (request.method === 'POST') {
    // Reads the upload slowly: each piece 100 ms after the one before.
    request.on('data', () => {
      request.pause();
      setTimeout(() => request.resume(), 100);
    });
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ file: { id: 'stored' } }));
    });
  }
}

describe('RestClient transfers', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let client: RestClient;

  beforeAll(async () => {
    server = createServer(handle);
    server.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    client = new RestClient(`http://127.0.0.1:${address.port}/v1/api`, { timeoutMs: TIMEOUT_MS });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fails a download whose head does not come within the request timeout', async () => {
    await expect(client.download('never')).rejects.toThrow(RequestTimeoutError);
  });

  it('fails a download whose body stops for the request timeout, as RequestTimeoutError', async () => {
    const { stream } = await client.download('stalls-in-body');
    const failure = await new Promise<unknown>((resolve) => {
      stream.on('error', resolve);
      stream.resume();
    });
    expect(failure).toBeInstanceOf(RequestTimeoutError);
    expect((failure as Error).message).toContain(`within ${TIMEOUT_MS / 1000} s`);
  });

  it('lets an upload take longer than the request timeout while it makes progress', async () => {
    let pieces = 0;
    const source = new Readable({
      read() {
        if (pieces++ === 12) this.push(null);
        else setTimeout(() => this.push(Buffer.alloc(1024, 1)), 100);
      },
    });
    const started = Date.now();
    expect(await client.upload(source)).toEqual({ id: 'stored' });
    expect(Date.now() - started).toBeGreaterThan(TIMEOUT_MS);
  });
});
