/**
 * The storage layer of a real daemon through its REST routes and the project's client: round
 * trips of the edge sizes in every encoding and streamed (through the chunk-io addon where it
 * was built), shared chunks and removal, the exact
 * bodies of the spec, pagination, `meta.fileCount`, `/ws/node` file events, bad input (400, 404,
 * 413) and the OpenAPI document. Two volumes; the scrubber is off here so that what a read
 * finds is the read's doing (storage-volumes.test.ts runs it).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RawConnection } from '../helpers/raw-http.js';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Validator } from '@seriousme/openapi-schema-validator';
import WebSocket from 'ws';
import type { RestClient } from '../../src/client/rest-client.js';
import { RestResponseError } from '../../src/client/errors.js';
import type { StorageEvent } from '../../src/shared/storage-api.js';
import { waitFor } from '../helpers/processes.js';
import { startStorageDaemon } from '../helpers/storage-daemon.js';
import type { TestDaemon } from '../helpers/test-daemon.js';
import { daemonLogText } from '../helpers/daemon-log.js';
import { CHUNK_IO_ADDON } from '../../src/daemon/storage/chunk-io.js';

const MiB = 1024 * 1024;
const MAX_UPLOAD = 60 * MiB;
const SIZES = [0, 1, MiB, MiB + 1, 50 * MiB];

let daemon: TestDaemon;
let rest: RestClient;
let volumes: string[];

beforeAll(async () => {
  ({ daemon, rest, volumes } = await startStorageDaemon(2, [
    '--storage.scrub-rate',
    '0',
    '--storage.max-upload-size',
    `${MAX_UPLOAD}B`,
    '--log-level',
    'debug',
  ]));
});

afterAll(async () => {
  await rest?.close();
  await daemon?.stop();
});

function replicaPath(volume: string, id: string): string {
  return join(volume, 'chunks', id.slice(0, 2), id);
}

/** Every replica file on the volumes. */
function replicaFiles(): string[] {
  return volumes.flatMap((volume) =>
    existsSync(join(volume, 'chunks'))
      ? readdirSync(join(volume, 'chunks')).flatMap((shard) =>
          readdirSync(join(volume, 'chunks', shard)),
        )
      : [],
  );
}

async function download(id: string): Promise<Buffer> {
  const { length, stream } = await rest.download(id);
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  const bytes = Buffer.concat(parts);
  expect(bytes.length).toBe(length);
  return bytes;
}

/** Printable ASCII of `size` bytes: valid UTF-8, so every encoding applies. */
function text(size: number): Buffer {
  const bytes = randomBytes(size);
  for (let i = 0; i < size; i += 1) bytes[i] = 0x20 + (bytes[i] % 0x5f);
  return bytes;
}

/** Byte equality by length and hash: jest's toEqual walks a 50 MiB buffer byte by byte. */
function expectSameBytes(actual: Buffer, expected: Buffer): void {
  expect({ length: actual.length, sha256: sha256(actual) }).toEqual({
    length: expected.length,
    sha256: sha256(expected),
  });
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function expectStatus(promise: Promise<unknown>, status: number, message: RegExp) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RestResponseError);
  expect((error as RestResponseError).status).toBe(status);
  expect((error as Error).message).toMatch(message);
}

describe('round trips', () => {
  it('go through the chunk-io addon where it was built', () => {
    const log = daemonLogText(daemon.dataDir);
    expect(log).toContain(
      existsSync(CHUNK_IO_ADDON)
        ? 'chunk-io addon loaded'
        : 'chunk-io addon absent: chunks go through WebCrypto and node:fs',
    );
  });

  it.each(SIZES)('%i bytes of any value: base64, hex, binary and the raw stream', async (size) => {
    const bytes = randomBytes(size);
    const file = await rest.upload(bytes, { name: `random-${size}`, size });
    expect(file).toMatchObject({ size, localPath: `random-${size}`, ul_status: 'uploaded' });
    expect(file.chunkIds).toHaveLength(Math.ceil(size / MiB));
    expectSameBytes(Buffer.from(await rest.fileContent(file.id, 'base64'), 'base64'), bytes);
    expectSameBytes(Buffer.from(await rest.fileContent(file.id, 'hex'), 'hex'), bytes);
    expectSameBytes(Buffer.from(await rest.fileContent(file.id, 'binary'), 'latin1'), bytes);
    expectSameBytes(await download(file.id), bytes);
  });

  it.each(SIZES)('%i bytes of text: utf-8 as well, streamed up without a length', async (size) => {
    const bytes = text(size);
    const file = await rest.upload(Readable.from([bytes.subarray(0, 7), bytes.subarray(7)]), {
      name: `text-${size}`,
    });
    expect(file.size).toBe(size);
    expectSameBytes(Buffer.from(await rest.fileContent(file.id, 'utf-8'), 'utf8'), bytes);
    expectSameBytes(Buffer.from(await rest.fileContent(file.id, 'base64'), 'base64'), bytes);
    expectSameBytes(await download(file.id), bytes);
  });

  it('utf-8 of bytes that are not UTF-8 is a 400 that says which encodings work', async () => {
    const file = await rest.upload(Buffer.from([0xff, 0xfe, 0x00]));
    await expectStatus(rest.fileContent(file.id, 'utf-8'), 400, /not valid UTF-8.*base64/);
  });

  it('the same bytes uploaded again are the same file', async () => {
    const bytes = randomBytes(1000);
    const first = await rest.upload(bytes, { name: 'one' });
    const again = await rest.upload(bytes, { name: 'two' });
    expect(again.id).toBe(first.id);
    expect(again.localPath).toBe('one');
  });
});

describe('files and chunks', () => {
  it('answers the spec shapes; shared chunks list both files; removing one keeps the other', async () => {
    const common = randomBytes(2 * MiB);
    const a = await rest.upload(Buffer.concat([common, Buffer.from('tail a')]), { name: 'a.bin' });
    const b = await rest.upload(Buffer.concat([common, Buffer.from('tail b')]), {
      name: 'b.bin',
      redundancy: 2,
    });
    expect(a.chunkIds.slice(0, 2)).toEqual(b.chunkIds.slice(0, 2));

    const detail = await rest.request('GET', `/storage/files/${a.id}`);
    expect(detail.body).toEqual({
      file: {
        localPath: 'a.bin',
        size: 2 * MiB + 6,
        chunkIds: a.chunkIds,
        id: a.id,
        redundancy: 1,
        expires: 0,
        autorenew: false,
        ul_status: 'uploaded',
      },
    });
    const chunk = await rest.request('GET', `/storage/chunks/${a.chunkIds[0]}`);
    expect(chunk.body).toEqual({
      chunk: {
        chunk: {
          belongsToFiles: expect.arrayContaining([
            [a.id, 0, 'a.bin'],
            [b.id, 0, 'b.bin'],
          ]),
          ul_status: 'uploaded',
          id: a.chunkIds[0],
          redundancy: 2,
          expires: 0,
          autorenew: false,
          dl_status: 'downloaded',
          length: MiB,
        },
      },
    });
    const listed = (await rest.files()).files.find((file) => file.id === a.id);
    expect(listed).toEqual({
      id: a.id,
      localPath: 'a.bin',
      size: 2 * MiB + 6,
      redundancy: 1,
      expires: 0,
      autorenew: false,
      chunkCount: 3,
    });
    const chunks = (await rest.chunks()).chunks;
    expect(chunks.find((item) => item.id === a.chunkIds[0])).toEqual({
      id: a.chunkIds[0],
      redundancy: 2,
      expires: 0,
      autorenew: false,
    });

    expect((await rest.request('DELETE', `/storage/files/${a.id}`)).body).toEqual({
      data: { removed: a.id },
    });
    await expectStatus(rest.file(a.id), 404, /not found/);
    await expectStatus(rest.chunk(a.chunkIds[2]), 404, /not found/);
    expect(replicaFiles()).not.toContain(a.chunkIds[2]);
    expect((await rest.chunk(a.chunkIds[0])).belongsToFiles).toEqual([[b.id, 0, 'b.bin']]);
    expectSameBytes(await download(b.id), Buffer.concat([common, Buffer.from('tail b')]));
  });

  it('pages with limit and cursor; meta.fileCount counts the files', async () => {
    const all = (await rest.files()).files;
    expect(all.length).toBeGreaterThan(3);
    expect((await rest.meta()).fileCount).toBe(all.length);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rest.files({ limit: 2, cursor });
      expect(page.files.length).toBeLessThanOrEqual(2);
      seen.push(...page.files.map((file) => file.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(all.map((file) => file.id));
    expect([...seen].sort()).toEqual(seen);
    expect((await rest.request('GET', '/storage/files')).body).not.toHaveProperty('nextCursor');
  });
});

describe('replicas on two volumes', () => {
  it('a corrupt replica is found by the read, served from the other volume and repaired', async () => {
    const bytes = randomBytes(3 * MiB);
    const file = await rest.upload(bytes, { redundancy: 2 });
    const id = file.chunkIds[1];
    const good = readFileSync(replicaPath(volumes[0], id));
    const damaged = Buffer.from(good);
    damaged[12345] ^= 0x01;
    writeFileSync(replicaPath(volumes[0], id), damaged);
    expectSameBytes(Buffer.from(await rest.fileContent(file.id, 'base64'), 'base64'), bytes);
    expectSameBytes(readFileSync(replicaPath(volumes[0], id)), good);
    expect((await rest.chunk(id)).dl_status).toBe('downloaded');
    const log = daemonLogText(daemon.dataDir);
    expect(log).toMatch(
      new RegExp(`chunk replica bad chunk=${id} volume=\\S+vol-a replica=corrupt`),
    );
    expect(log).toMatch(new RegExp(`chunk replica repaired chunk=${id}`));
  });

  it('redundancy 3 on two volumes is degraded, with one replica per volume', async () => {
    const file = await rest.upload(randomBytes(MiB + 1), { redundancy: 3 });
    expect(file.ul_status).toBe('degraded');
    expect((await rest.file(file.id)).ul_status).toBe('degraded');
    for (const volume of volumes) {
      for (const id of file.chunkIds) expect(existsSync(replicaPath(volume, id))).toBe(true);
    }
  });
});

describe('/ws/node', () => {
  it('streams the status changes of an upload and a removal', async () => {
    const socket = new WebSocket(
      `${(daemon.endpoints.rest as string).replace(/^http/, 'ws')}/ws/node`,
      { headers: { authorization: `Bearer ${daemon.token}` } },
    );
    const events: StorageEvent[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as StorageEvent | { type: 'block' };
      if (message.type !== 'block') events.push(message);
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const file = await rest.upload(randomBytes(100), { name: 'watched' });
    await rest.removeFile(file.id);
    await waitFor(
      () =>
        events.some(
          (e) => e.type === 'file' && e.data.id === file.id && e.data.ul_status === 'removed',
        ),
      10_000,
      'the removal event',
    );
    socket.close();
    const statuses = events.flatMap((e) => (e.type === 'file' ? [e.data.ul_status] : []));
    expect(statuses).toEqual(['queued', 'uploading', 'uploaded', 'removed']);
    expect(events[0].data.id).toMatch(/^upload-[0-9a-f]{16}$/);
    expect(events[2].data).toMatchObject({ id: file.id, localPath: 'watched' });
  });
});

describe('bad input', () => {
  const zeros = '0'.repeat(64);

  it('unknown ids are 404, malformed ids 400 naming the id', async () => {
    await expectStatus(rest.file(zeros), 404, /file 0{64} not found/);
    await expectStatus(rest.chunk(zeros), 404, /chunk 0{64} not found/);
    await expectStatus(rest.fileContent(zeros, 'hex'), 404, /not found/);
    await expectStatus(rest.download(zeros), 404, /not found/);
    await expectStatus(rest.removeFile(zeros), 404, /not found/);
    for (const bad of ['xyz', zeros.toUpperCase().replace(/0/g, 'A'), `${zeros}0`]) {
      await expectStatus(rest.file(bad), 400, /id/);
      await expectStatus(rest.chunk(bad), 400, /id/);
    }
    const answer = await rest.request('GET', `/storage/files/${zeros}/content?encoding=utf16`);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toMatch(/encoding/);
    for (const [query, field] of [
      ['redundancy=0', 'redundancy'],
      ['redundancy=17', 'redundancy'],
      ['expires=-1', 'expires'],
      ['autorenew=maybe', 'autorenew'],
    ]) {
      const refused = await rest.request('POST', `/storage/files?${query}`, undefined, {
        'content-type': 'application/octet-stream',
      });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toMatch(new RegExp(field));
    }
    await expectStatus(rest.upload(Buffer.from('x'), { expires: 1 }), 400, /not in the future/);
    await expectStatus(rest.files({ limit: 0 }), 400, /limit/);
  });

  it('an upload over --storage.max-upload-size is 413 whether it declares its size or not, and leaves nothing', async () => {
    const before = { files: (await rest.files()).files.length, replicas: replicaFiles().length };
    await expectStatus(
      rest.upload(randomBytes(MAX_UPLOAD + 1), { size: MAX_UPLOAD + 1 }),
      413,
      /--storage.max-upload-size/,
    );
    const streamed = (async function* () {
      for (let sent = 0; sent <= MAX_UPLOAD; sent += MiB) yield randomBytes(MiB);
    })();
    const error = await rest.upload(Readable.from(streamed)).catch((e: unknown) => e);
    // The daemon answers 413 and closes the connection while the body is still coming.
    if (error instanceof RestResponseError) expect(error.status).toBe(413);
    else expect(error).toBeInstanceOf(Error);
    expect((await rest.files()).files.length).toBe(before.files);
    expect(replicaFiles().length).toBe(before.replicas);
  });
});

/** The head of an upload of `length` bytes, as a raw connection sends it. */
function uploadHead(query: string, length: number): string {
  return [
    `POST /v1/api/storage/files${query} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${daemon.token}`,
    'Content-Type: application/octet-stream',
    `Content-Length: ${length}`,
    '',
    '',
  ].join('\r\n');
}

describe('an upload refused as too large while its body is still to come', () => {
  it('gets its 413 at once, before the body, on the open connection', async () => {
    const connection = await RawConnection.open(daemon.endpoints.rest as string);
    try {
      connection.write(uploadHead('', MAX_UPLOAD + 1));
      // Not one byte of the body is sent: the answer cannot wait for it.
      const [answer] = await connection.responses(1);
      expect(answer?.status).toBe(413);
      expect(answer?.body).toMatch(/--storage.max-upload-size/);
    } finally {
      connection.end();
    }
  });
});

describe('an upload refused while its body is still to come, then cut short', () => {
  it('gets one answer: the refusal, not a second 400 for the missing bytes', async () => {
    const connection = await RawConnection.open(daemon.endpoints.rest as string);
    try {
      connection.write(`${uploadHead('?expires=-1', 5000)}abc`);
      const [refusal] = await connection.responses(1);
      expect(refusal?.status).toBe(400);
      expect(refusal?.body).toMatch(/querystring\/expires must be >= 0/);
      connection.endWriting();
      await connection.closedByServer();
      expect(await connection.responses(2)).toHaveLength(1);
    } finally {
      connection.end();
    }
  });
});

describe('openapi.json', () => {
  it('is valid and documents every storage route', async () => {
    const document = (await rest.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const result = await new Validator().validate(document as never);
    expect(result.errors).toBeUndefined();
    for (const [path, method] of [
      ['/v1/api/storage/files', 'get'],
      ['/v1/api/storage/files', 'post'],
      ['/v1/api/storage/files/{id}', 'get'],
      ['/v1/api/storage/files/{id}', 'delete'],
      ['/v1/api/storage/files/{id}/content', 'get'],
      ['/v1/api/storage/files/{id}/raw', 'get'],
      ['/v1/api/storage/chunks', 'get'],
      ['/v1/api/storage/chunks/{id}', 'get'],
    ]) {
      expect(document.paths[path]?.[method]).toBeDefined();
    }
  });
});
