/**
 * The storage layer of a real daemon against hostile input and faults: numbers in query strings
 * written other than in decimal digits (Infinity, 1e400, 0x2, past 2^53) are 400 and never reach
 * the index; an upload sent as another type is told the type it needs; a volume removed during an
 * upload with redundancy 2 leaves the file stored `degraded` on the other volume, and the bytes
 * the upload left on the removed one are collected when it returns; a volume that turns
 * read-only during an upload is a 507 naming it, lists nothing, and the replicas it wrote are
 * collected once the volume is writable again; a replica left `repairing` by a stop is checked
 * and rewritten at the next start.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { RestClient } from '../../src/client/rest-client.js';
import { RestResponseError } from '../../src/client/errors.js';
import { StorageIndex } from '../../src/daemon/storage/storage-index.js';
import { runCli } from '../helpers/cli.js';
import { RawConnection } from '../helpers/raw-http.js';
import { waitFor } from '../helpers/processes.js';
import { startStorageDaemon, type StorageDaemon } from '../helpers/storage-daemon.js';
import {
  canMountTmpfs,
  mountTmpfs,
  remountTmpfs,
  startDaemonOnTmpfs,
  type TmpfsDaemon,
  unmountTmpfs,
} from '../helpers/tmpfs.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { daemonLogText } from '../helpers/daemon-log.js';

const CHUNK = 64 * 1024;
const STORAGE_FLAGS = [
  '--storage.chunk-size',
  `${CHUNK}B`,
  '--storage.scrub-rate',
  '0',
  '--storage.collect-interval',
  '200ms',
];

let daemon: TestDaemon;
let rest: RestClient;
let volumes: string[];

beforeAll(async () => {
  ({ daemon, rest, volumes } = await startStorageDaemon(2, STORAGE_FLAGS));
});

afterAll(async () => {
  await rest?.close();
  await daemon?.stop();
});

/** Ids of the replica files on a volume. */
function replicasOn(volume: string): string[] {
  const chunks = join(volume, 'chunks');
  if (!existsSync(chunks)) return [];
  return readdirSync(chunks).flatMap((shard) => readdirSync(join(chunks, shard)));
}

async function refusal(promise: Promise<unknown>): Promise<RestResponseError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RestResponseError);
  return error as RestResponseError;
}

describe('query strings', () => {
  it('numbers other than decimal digits (Infinity, exponents, hex, past 2^53) and unknown parameters are 400 naming the parameter, and never stored', async () => {
    const bytes = randomBytes(100);
    const file = await rest.upload(bytes, { name: 'plain' });
    for (const [options, field] of [
      [{ redundancy: Infinity }, 'redundancy'],
      [{ redundancy: -Infinity }, 'redundancy'],
      [{ expires: '1e400' as unknown as number }, 'expires'],
      [{ expires: 2 ** 60 }, 'expires'],
      [{ redundancy: '0x2' as unknown as number }, 'redundancy'],
    ] as const) {
      // The same bytes again: an accepted upload would raise the stored file's lease.
      const error = await refusal(rest.upload(bytes, options));
      expect(error.status).toBe(400);
      expect(error.message).toMatch(new RegExp(`${field} must be written in decimal digits`));
    }
    for (const name of ['evil\u001b[2Jname', 'evil\u009b2Jname']) {
      const named = await refusal(rest.upload(bytes, { name }));
      expect(named.status).toBe(400);
      expect(named.message).toMatch(/name: control characters are not allowed/);
    }
    const encoding = await rest.request('GET', `/storage/files/${file.id}/content?encoding=utf8`);
    expect(encoding).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'querystring/encoding must be one of utf-8, base64, binary, hex',
        },
      },
    });
    const misspelt = await rest.request('GET', '/storage/files?limit=5&lmit=2');
    expect(misspelt).toMatchObject({
      status: 400,
      body: {
        error: { code: 400, message: 'querystring/lmit is not a parameter of this operation' },
      },
    });
    // Operations without parameters refuse any, as the others refuse those they lack.
    for (const path of [
      `/storage/files/${file.id}?x=1`,
      `/storage/files/${file.id}/raw?encoding=hex`,
      `/storage/chunks/${file.chunkIds[0]}?limit=5`,
    ]) {
      const extra = await rest.request('GET', path);
      expect(extra.status).toBe(400);
      expect(JSON.stringify(extra.body)).toMatch(
        /querystring\/\w+ is not a parameter of this operation/,
      );
    }
    const removal = await rest.request('DELETE', `/storage/files/${file.id}?force=1`);
    expect(removal.status).toBe(400);
    for (const limit of [Infinity, -Infinity, '1e3' as unknown as number]) {
      const error = await refusal(rest.files({ limit }));
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/limit must be written in decimal digits/);
    }
    expect(await rest.file(file.id)).toMatchObject({ redundancy: 1, expires: 0 });
    expect((await rest.files()).files.map((each) => each.id)).toContain(file.id);
    expect((await rest.chunks()).chunks.map((each) => each.id)).toContain(file.chunkIds[0]);
  });
});

describe('content types', () => {
  it('an upload sent as a form is 400 naming application/octet-stream, one compressed 400 too', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const answer = await request(`${daemon.endpoints.rest as string}/storage/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': type },
        body: 'a=1',
      });
      expect(answer.statusCode).toBe(400);
      expect(await answer.body.json()).toEqual({
        error: {
          code: 400,
          message: 'request body must be application/octet-stream (Content-Type)',
        },
      });
    }
    const gzipped = await request(`${daemon.endpoints.rest as string}/storage/files`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${daemon.token}`,
        'content-type': 'application/octet-stream',
        'content-encoding': 'gzip',
      },
      body: gzipSync(Buffer.from('compressed')),
    });
    expect(gzipped.statusCode).toBe(400);
    expect(await gzipped.body.json()).toEqual({
      error: {
        code: 400,
        message: "Content-Encoding gzip: send the file's bytes as they are, without an encoding",
      },
    });
  });
});

describe('an upload whose bytes stop coming', () => {
  let idle: TestDaemon | undefined;

  afterAll(async () => idle?.stop());

  it('is answered 408 naming the flag, and lists and keeps nothing', async () => {
    idle = await startTestDaemon([...STORAGE_FLAGS, '--storage.upload-idle-timeout', '500ms']);
    const head = (framing: string) =>
      `POST /v1/api/storage/files?name=stalled HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: Bearer ${idle?.token}\r\nContent-Type: application/octet-stream\r\n` +
      `${framing}\r\n`;
    // More declared than sent; then a chunked body that stops after its first chunk.
    for (const request of [
      `${head('Content-Length: 1000000\r\n')}${'x'.repeat(CHUNK + 10)}`,
      `${head('Transfer-Encoding: chunked\r\n')}${(CHUNK + 10).toString(16)}\r\n${'y'.repeat(CHUNK + 10)}\r\n`,
    ]) {
      const connection = await RawConnection.open(idle.endpoints.rest as string);
      try {
        connection.write(request);
        const [answer] = await connection.responses(1);
        expect(answer.status).toBe(408);
        expect(JSON.parse(answer.body)).toEqual({
          error: {
            code: 408,
            message: 'upload sent no bytes for 500 ms (set by --storage.upload-idle-timeout)',
          },
        });
        expect(await connection.closedByServer()).toBe(true);
      } finally {
        connection.end();
      }
    }
    const client = new RestClient(idle.endpoints.rest as string, { token: idle.token });
    try {
      expect((await client.files()).files).toEqual([]);
      expect((await client.chunks()).chunks).toEqual([]);
    } finally {
      await client.close();
    }
    const volume = join(idle.dataDir, 'storage');
    expect(replicasOn(volume)).toEqual([]);
    expect(readdirSync(volume)).toEqual(['chunks']);
  });
});

describe('an upload whose client goes away mid-body', () => {
  it('lists and keeps nothing, and is not logged as a fault of the node', async () => {
    const before = volumes.flatMap(replicasOn).length;
    const connection = await RawConnection.open(daemon.endpoints.rest as string);
    connection.write(
      `POST /v1/api/storage/files?name=vanishing HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${daemon.token}\r\nContent-Type: application/octet-stream\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${(CHUNK + 10).toString(16)}\r\n${'v'.repeat(CHUNK + 10)}\r\n`,
    );
    await waitFor(
      () => volumes.flatMap(replicasOn).length > before,
      30_000,
      'the first chunk on disk',
    );
    connection.end();
    await waitFor(
      () => /upload failed .*localPath=vanishing/.test(daemonLogText(daemon.dataDir)),
      30_000,
      'the upload to fail',
    );
    expect(volumes.flatMap(replicasOn)).toHaveLength(before);
    expect((await rest.files()).files.map((file) => file.localPath)).not.toContain('vanishing');
    expect(daemonLogText(daemon.dataDir)).not.toMatch(/REST operation failed/);
  });
});

/** The chunk ids of `bytes` split as the daemon splits them. */
function chunkIdsOf(bytes: Buffer): string[] {
  const ids: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += CHUNK) {
    ids.push(
      createHash('sha256')
        .update(bytes.subarray(offset, offset + CHUNK))
        .digest('hex'),
    );
  }
  return ids;
}

describe('concurrent work on files that share chunks', () => {
  it('uploads of the same bytes at once, and removals meanwhile, leave listed files whole and no unlisted replica', async () => {
    const common = randomBytes(6 * CHUNK);
    const contents = new Map<string, Buffer>();
    const ours = new Set<string>();
    let previous: string[] = [];
    for (let round = 0; round < 6; round += 1) {
      const variants = [0, 1, 2].map((n) =>
        Buffer.concat([common, Buffer.from(`round ${round} file ${n}`)]),
      );
      for (const id of variants.flatMap(chunkIdsOf)) ours.add(id);
      const uploads = [...variants, ...variants].map((bytes) =>
        rest.upload(bytes, { name: 'shared', redundancy: 2 }),
      );
      const removals = previous.map((id) => rest.removeFile(id));
      const stored = await Promise.all(uploads);
      await Promise.all(removals);
      for (const id of previous) contents.delete(id);
      stored.forEach((file, n) => contents.set(file.id, [...variants, ...variants][n]));
      previous = [...new Set(stored.map((file) => file.id))];
    }
    const listed = (await rest.files()).files.filter((file) => file.localPath === 'shared');
    expect(listed.map((file) => file.id).sort()).toEqual([...contents.keys()].sort());
    for (const [id, bytes] of contents) {
      expect(Buffer.from(await rest.fileContent(id, 'base64'), 'base64').equals(bytes)).toBe(true);
      expect((await rest.file(id)).ul_status).toBe('uploaded');
    }
    const held = new Set([...contents.values()].flatMap(chunkIdsOf));
    for (const volume of volumes) {
      const left = replicasOn(volume).filter((id) => ours.has(id) && !held.has(id));
      expect({ volume, left }).toEqual({ volume, left: [] });
    }
  });

  it('a removal during a download: the download still gets every byte, then nothing is left behind', async () => {
    const bytes = randomBytes(200 * CHUNK);
    const file = await rest.upload(bytes, { name: 'downloading' });
    const { length, stream } = await rest.download(file.id);
    expect(length).toBe(bytes.length);
    const parts: Buffer[] = [];
    for await (const part of stream) {
      parts.push(part as Buffer);
      if (parts.length === 1) await rest.removeFile(file.id);
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    await expect(rest.file(file.id)).rejects.toThrow(/not found/);
    const ids = new Set(chunkIdsOf(bytes));
    await waitFor(
      () => volumes.every((volume) => !replicasOn(volume).some((id) => ids.has(id))),
      30_000,
      'every replica of the removed file to go',
    );
  });
});

describe('a download whose client stops taking bytes', () => {
  let stalling: StorageDaemon | undefined;
  let stalled: Readable | undefined;

  afterAll(async () => {
    // Should the daemon keep the download open, closing the client would wait for it.
    stalled?.destroy();
    await stalling?.rest.close();
    await stalling?.daemon.stop();
  });

  it('ends after --storage.download-idle-timeout, so a file removed meanwhile leaves nothing behind; a slow client that keeps reading gets every byte', async () => {
    stalling = await startStorageDaemon(1, [
      ...STORAGE_FLAGS,
      '--storage.download-idle-timeout',
      '500ms',
    ]);
    const {
      daemon: node,
      rest: client,
      volumes: [volume],
    } = stalling;
    // Far more than the sockets between the two ends can hold, so the daemon has to wait.
    const bytes = randomBytes(512 * CHUNK);
    const file = await client.upload(bytes, { name: 'stalled download' });
    const { length, stream } = await client.download(file.id);
    stalled = stream;
    expect(length).toBe(bytes.length);
    await client.removeFile(file.id);
    const ids = new Set(chunkIdsOf(bytes));
    await waitFor(
      () => !replicasOn(volume).some((id) => ids.has(id)),
      30_000,
      'the stalled download to end and the removed file replicas to go',
    );
    expect(daemonLogText(node.dataDir)).toMatch(/download ended: its client took no bytes/);
    let received = 0;
    await expect(
      (async () => {
        for await (const part of stream) received += (part as Buffer).length;
      })(),
    ).rejects.toThrow();
    expect(received).toBeLessThan(length);

    const paced = randomBytes(64 * CHUNK);
    const slow = await client.upload(paced, { name: 'slow reader' });
    const download = await client.download(slow.id);
    const parts: Buffer[] = [];
    for await (const part of download.stream) {
      parts.push(part as Buffer);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(Buffer.concat(parts).equals(paced)).toBe(true);
  });
});

describe('a download whose first chunk has no intact replica', () => {
  it('is answered 503 with the error body, corrupt or missing, not a failed serialization', async () => {
    const file = await rest.upload(randomBytes(3 * CHUNK), { name: 'lost first chunk' });
    const [first] = file.chunkIds;
    const [replica] = volumes.flatMap((volume) =>
      existsSync(join(volume, 'chunks'))
        ? readdirSync(join(volume, 'chunks'))
            .map((shard) => join(volume, 'chunks', shard, first))
            .filter((path) => existsSync(path))
        : [],
    );
    const raw = async () => {
      const answer = await request(`${daemon.endpoints.rest}/storage/files/${file.id}/raw`, {
        headers: { authorization: `Bearer ${daemon.token}` },
      });
      return {
        status: answer.statusCode,
        type: answer.headers['content-type'],
        body: (await answer.body.json()) as { error: { code: number; message: string } },
      };
    };
    const bytes = readFileSync(replica);
    bytes[0] ^= 0xff;
    writeFileSync(replica, bytes);
    expect(await raw()).toEqual({
      status: 503,
      type: 'application/json; charset=utf-8',
      body: {
        error: {
          code: 503,
          message: expect.stringMatching(/has no intact replica \(.*: corrupt\)/),
        },
      },
    });
    unlinkSync(replica);
    expect((await raw()).body.error.message).toMatch(/has no intact replica \(.*: missing\)/);
  });
});

describe('a volume removed during an upload', () => {
  it('stores the file degraded on the other volume, and collects what it left there on return', async () => {
    const body = new PassThrough();
    const upload = rest.upload(body, { name: 'moving', redundancy: 2 });
    const first = randomBytes(8 * CHUNK);
    body.write(first);
    const firstIds = chunkIdsOf(first);
    await waitFor(
      () => volumes.every((volume) => firstIds.every((id) => replicasOn(volume).includes(id))),
      30_000,
      'the first chunks on both volumes',
    );
    renameSync(volumes[1], `${volumes[1]}.away`);
    const rest2 = randomBytes(4 * CHUNK + 5);
    body.end(rest2);
    const file = await upload;
    expect(file.ul_status).toBe('degraded');
    const content = Buffer.from(await rest.fileContent(file.id, 'base64'), 'base64');
    expect(content.equals(Buffer.concat([first, rest2]))).toBe(true);
    expect(daemonLogText(daemon.dataDir)).toMatch(
      /upload replicas dropped: volume directory not synced volume=\S+vol-b/,
    );

    renameSync(`${volumes[1]}.away`, volumes[1]);
    await waitFor(
      () => !replicasOn(volumes[1]).some((id) => file.chunkIds.includes(id)),
      30_000,
      "the upload's replicas left on the returned volume to be collected",
    );
    expect(daemonLogText(daemon.dataDir)).toMatch(/stray chunk replicas collected collected=\d+/);
    expect(replicasOn(volumes[0])).toEqual(expect.arrayContaining(file.chunkIds));
  });
});

describe('a volume that turns read-only during an upload', () => {
  const maybe = canMountTmpfs ? it : it.skip;
  let frozen: TmpfsDaemon | undefined;

  afterAll(async () => frozen?.close());

  maybe('is a 507 naming it; nothing is listed and its bytes go once it is writable', async () => {
    frozen = await startDaemonOnTmpfs('64m', STORAGE_FLAGS);
    const { client, volume, mount } = frozen;
    const body = new PassThrough();
    const upload = client.upload(body, { name: 'frozen' }).catch((e: unknown) => e);
    body.write(randomBytes(8 * CHUNK));
    await waitFor(() => replicasOn(volume).length >= 8, 30_000, 'the first chunks on disk');
    remountTmpfs(mount, 'ro');
    body.end(randomBytes(4 * CHUNK));
    const error = await upload;
    expect(error).toBeInstanceOf(RestResponseError);
    expect((error as RestResponseError).status).toBe(507);
    expect((error as Error).message).toMatch(
      new RegExp(`storage volume ${volume} is read-only \\(EROFS\\)`),
    );
    expect((await client.files()).files).toEqual([]);
    expect((await client.chunks()).chunks).toEqual([]);
    expect(replicasOn(volume).length).toBeGreaterThanOrEqual(8);

    remountTmpfs(mount, 'rw');
    await waitFor(() => replicasOn(volume).length === 0, 30_000, 'the stray replicas to go');
    expect((await client.upload(randomBytes(100))).ul_status).toBe('uploaded');
  });
});

describe('a full disk under the storage index', () => {
  const maybe = canMountTmpfs ? it : it.skip;
  let mount: string | undefined;
  let crowded: TestDaemon | undefined;

  afterAll(async () => {
    await crowded?.stop();
    if (mount) unmountTmpfs(mount);
  });

  maybe(
    'refuses an upload with 507 and lists nothing, still serves what it has, and takes uploads again once there is room',
    async () => {
      mount = mountTmpfs('64m') as string;
      const dataDir = join(mount, 'data');
      mkdirSync(dataDir);
      const twoVolumes = [join(dataDir, 'vol-a'), join(dataDir, 'vol-b')];
      crowded = await startTestDaemon(
        [...twoVolumes.flatMap((volume) => ['--storage.volume', volume]), ...STORAGE_FLAGS],
        dataDir,
      );
      const client = new RestClient(crowded.endpoints.rest as string, { token: crowded.token });
      try {
        const kept = randomBytes(3 * CHUNK);
        const stored = await client.upload(kept, { redundancy: 2 });
        // A damaged replica, whose discovery the full disk will not let the index record.
        const [damaged] = stored.chunkIds;
        writeFileSync(join(twoVolumes[0], 'chunks', damaged.slice(0, 2), damaged), 'damaged');
        const filler = join(mount, 'filler');
        // dd stops with an error when the file system is full, which is the point.
        spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'ignore' });
        const error = await refusal(client.upload(randomBytes(1000), { name: 'crowded' }));
        expect(error.status).toBe(507);
        expect(error.message).toMatch(/storage (index|volume) \S+ is full \(ENOSPC\)/);
        expect((await client.files()).files.map((file) => file.id)).toEqual([stored.id]);
        expect(twoVolumes.flatMap(replicasOn)).toHaveLength(2 * stored.chunkIds.length);
        const content = Buffer.from(await client.fileContent(stored.id, 'base64'), 'base64');
        expect(content.equals(kept)).toBe(true);
        rmSync(filler);
        expect((await client.upload(randomBytes(1000))).ul_status).toBe('uploaded');
      } finally {
        await client.close();
      }
    },
  );
});

describe('a repair interrupted by a stop', () => {
  const dataDir = makeDataDir();
  const twoVolumes = [join(dataDir, 'vol-a'), join(dataDir, 'vol-b')];
  const flags = [...twoVolumes.flatMap((volume) => ['--storage.volume', volume]), ...STORAGE_FLAGS];
  let restarted: TestDaemon | undefined;

  afterAll(async () => {
    if (restarted) await restarted.stop();
    else rmSync(dataDir, { recursive: true, force: true });
  });

  it('is checked again at the next start and the replica rewritten', async () => {
    const first = await startTestDaemon(flags, dataDir);
    const client = new RestClient(first.endpoints.rest as string, { token: first.token });
    const bytes = randomBytes(CHUNK);
    const file = await client.upload(bytes, { redundancy: 2 });
    await client.close();
    await Promise.all([first.rpc.close(), first.authedRpc.close()]);
    await runCli(['daemon', 'stop', '--datadir', dataDir]);

    // What a kill between "repairing" and the rename leaves: the state, and no replica file.
    const [id] = file.chunkIds;
    const index = await StorageIndex.open(join(dataDir, 'storage-index'));
    await index.change('a repair in progress', (w) => {
      const record = w.chunk(id);
      if (record)
        w.putChunk({ ...record, replicas: { ...record.replicas, [twoVolumes[1]]: 'repairing' } });
    });
    await index.close();
    const replica = join(twoVolumes[1], 'chunks', id.slice(0, 2), id);
    unlinkSync(replica);

    restarted = await startTestDaemon(flags, dataDir);
    const after = new RestClient(restarted.endpoints.rest as string, { token: restarted.token });
    try {
      expect((await after.chunk(id)).dl_status).toBe('downloaded');
      expect((await after.file(file.id)).ul_status).toBe('uploaded');
      expect(readFileSync(replica).equals(bytes)).toBe(true);
      expect(daemonLogText(dataDir)).toMatch(/storage recovered .*interruptedRepairs=1/);
    } finally {
      await after.close();
    }
  });
});
