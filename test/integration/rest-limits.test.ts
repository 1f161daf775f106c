/**
 * The REST listener bounds what a client can hold, as the JSON-RPC and consensus listeners do:
 * a request head and a JSON body each have `--rest.read-timeout` to arrive, a kept-alive
 * connection may idle as long, connections past `--rest.max-connections` are closed as they
 * arrive, and a `/content` answer whose client stops reading ends after
 * `--storage.download-idle-timeout`. A streamed upload is paced by its own limit instead, so a
 * slow one that keeps sending outlasts the read timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { RestClient } from '../../src/client/rest-client.js';
import { daemonLogText } from '../helpers/daemon-log.js';
import { waitFor } from '../helpers/processes.js';
import { RawConnection, trickle } from '../helpers/raw-http.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const READ_TIMEOUT_MS = 1000;
const MAX_CONNECTIONS = 4;

function restBase(daemon: TestDaemon): string {
  return daemon.endpoints.rest as string;
}

function head(method: string, path: string, extra = ''): string {
  return `${method} /v1/api${path} HTTP/1.1\r\nHost: localhost\r\n${extra}`;
}

async function closedWithin(connection: RawConnection): Promise<number> {
  const started = Date.now();
  await connection.closedByServer();
  return Date.now() - started;
}

describe('REST listener limits', () => {
  let daemon: TestDaemon;
  let rest: RestClient;

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--rest.read-timeout',
      `${READ_TIMEOUT_MS}ms`,
      '--storage.download-idle-timeout',
      `${READ_TIMEOUT_MS}ms`,
      '--storage.chunk-size',
      '64KiB',
    ]);
    rest = new RestClient(restBase(daemon), { token: daemon.token });
  });
  afterAll(async () => {
    await rest?.close();
    await daemon?.stop();
  });

  it('answers a JSON body that trickles 408 naming the option and closes; closes heads that never end and idle connections', async () => {
    const auth = `Authorization: Bearer ${daemon.token}\r\n`;
    const slowBody = await RawConnection.open(restBase(daemon));
    slowBody.write(
      head(
        'POST',
        '/crypto/sign',
        `${auth}Content-Type: application/json\r\nContent-Length: 64\r\n\r\n{`,
      ),
    );
    const stopBody = trickle(slowBody, ' ', 200);
    // Refused before its body is read: the connection closes instead of waiting for the body.
    const refused = await RawConnection.open(restBase(daemon));
    refused.write(
      head('POST', '/crypto/sign', 'Content-Type: application/json\r\nContent-Length: 64\r\n\r\n{'),
    );
    const stopRefused = trickle(refused, ' ', 200);
    const slowHead = await RawConnection.open(restBase(daemon));
    slowHead.write(head('GET', '/status/ping'));
    const stopHead = trickle(slowHead, 'X-Slow: 1\r\n', 100);
    const blankLines = await RawConnection.open(restBase(daemon));
    blankLines.write(head('GET', '/status/ping', '\r\n'));
    expect((await blankLines.responses(1))[0].status).toBe(200);
    const stopLines = trickle(blankLines, '\r\n', 100);
    const silent = await RawConnection.open(restBase(daemon));

    const closed = await Promise.all(
      [slowBody, refused, slowHead, blankLines, silent].map(closedWithin),
    );
    for (const stop of [stopBody, stopRefused, stopHead, stopLines]) stop();
    // Each within the deadline plus the checks' granularity and load: not for ever.
    for (const ms of closed) expect(ms).toBeLessThan(10_000);
    const [timedOut] = await slowBody.responses(1);
    expect(timedOut.status).toBe(408);
    expect(JSON.parse(timedOut.body)).toEqual({
      error: {
        code: 408,
        message: `request body not received within ${READ_TIMEOUT_MS} ms (--rest.read-timeout)`,
      },
    });
    expect(timedOut.headers).toMatch(/connection: close/i);
    expect((await refused.responses(1))[0].status).toBe(401);
    // The listener still serves.
    expect(await rest.ping()).toBe('pong');
  });

  it('outlives the read timeout of bodies it refused without reading them', async () => {
    // Answered 400 for its type before fastify reads it; its deadline once threw out of the
    // process when it expired.
    const refusedUnread = await RawConnection.open(restBase(daemon));
    refusedUnread.write(
      head(
        'POST',
        '/crypto/sign',
        `Authorization: Bearer ${daemon.token}\r\nContent-Type: application/xml\r\nContent-Length: 2\r\n\r\nhi`,
      ),
    );
    const [refused] = await refusedUnread.responses(1);
    expect(refused.status).toBe(400);
    refusedUnread.end();
    await new Promise((resolve) => setTimeout(resolve, READ_TIMEOUT_MS * 2));
    expect(await rest.ping()).toBe('pong');
  });

  it('takes a streamed upload that keeps sending for longer than the read timeout', async () => {
    const pieces = Array.from({ length: 12 }, () => randomBytes(32 * 1024));
    const body = new PassThrough();
    const upload = rest.upload(body, { name: 'paced upload' });
    for (const piece of pieces) {
      body.write(piece);
      await new Promise((resolve) => setTimeout(resolve, READ_TIMEOUT_MS / 4));
    }
    body.end();
    const file = await upload;
    expect(file.ul_status).toBe('uploaded');
    expect(Buffer.from(await rest.fileContent(file.id, 'base64'), 'base64')).toEqual(
      Buffer.concat(pieces),
    );
  });

  it('ends a /content answer whose client stops reading', async () => {
    // Hex doubles it: far more than the sockets between the two ends hold.
    const file = await rest.upload(randomBytes(16 * 1024 * 1024), { name: 'unread content' });
    const reader = await RawConnection.open(restBase(daemon));
    reader.pause();
    reader.write(
      head(
        'GET',
        `/storage/files/${file.id}/content?encoding=hex`,
        `Authorization: Bearer ${daemon.token}\r\n\r\n`,
      ),
    );
    const ended = () =>
      daemonLogText(daemon.dataDir)
        .split('\n')
        .some(
          (line) =>
            line.includes('download ended: its client took no bytes') && line.includes(file.id),
        );
    await waitFor(ended, 30_000, 'the unread /content answer to end');
    reader.end();
  });
});

describe('REST connection cap', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--rest.max-connections', String(MAX_CONNECTIONS)]);
  });
  afterAll(() => daemon?.stop());

  it('closes connections past --rest.max-connections as they arrive, logs once, and serves the others', async () => {
    const open = await Promise.all(
      Array.from({ length: MAX_CONNECTIONS }, () => RawConnection.open(restBase(daemon))),
    );
    // An answer on each proves the listener counts them all.
    for (const connection of open) {
      connection.write(head('GET', '/status/ping', '\r\n'));
      expect((await connection.responses(1))[0].status).toBe(200);
    }
    for (let refused = 0; refused < 2; refused++) {
      const extra = await RawConnection.open(restBase(daemon));
      extra.write(head('GET', '/status/ping', '\r\n'));
      expect(await extra.closedByServer()).toBe(true);
      expect(await extra.responses(1)).toEqual([]);
    }
    open[0].write(head('GET', '/status/ping', '\r\n'));
    expect((await open[0].responses(2))[1].status).toBe(200);
    open[0].end();
    await waitFor(
      async () => {
        const connection = await RawConnection.open(restBase(daemon));
        connection.write(head('GET', '/status/ping', 'Connection: close\r\n\r\n'));
        const [answer] = await connection.responses(1);
        return answer?.status === 200;
      },
      10_000,
      'a connection accepted again',
    );
    for (const connection of open) connection.end();
    const warnings = daemonLogText(daemon.dataDir).match(/REST connection refused/g) ?? [];
    expect(warnings).toHaveLength(1);
  });
});
