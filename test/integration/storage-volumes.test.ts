/**
 * The storage layer's background work on a real daemon: with the scrubber running, a volume
 * directory removed while the node runs turns its replicas `missing` (and the file `degraded`)
 * while the file stays readable, and both are whole again when the directory returns; the
 * collector removes an expired file with the chunks only it held and renews one with
 * `autorenew`; a full volume refuses an upload with 507 and lists nothing (on a small tmpfs,
 * where the tests may mount one).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { RestClient } from '../../src/client/rest-client.js';
import { RestResponseError } from '../../src/client/errors.js';
import type { ChunkStatus } from '../../src/shared/storage-api.js';
import { waitFor } from '../helpers/processes.js';
import { startStorageDaemon } from '../helpers/storage-daemon.js';
import { canMountTmpfs, startDaemonOnTmpfs, type TmpfsDaemon } from '../helpers/tmpfs.js';
import type { TestDaemon } from '../helpers/test-daemon.js';

const MiB = 1024 * 1024;

let daemon: TestDaemon;
let rest: RestClient;
let volumes: string[];

beforeAll(async () => {
  ({ daemon, rest, volumes } = await startStorageDaemon(2, [
    '--storage.scrub-rate',
    '200',
    '--storage.collect-interval',
    '200ms',
  ]));
});

afterAll(async () => {
  await rest?.close();
  await daemon?.stop();
});

async function chunkStatuses(ids: readonly string[]): Promise<ChunkStatus[]> {
  return Promise.all(ids.map(async (id) => (await rest.chunk(id)).dl_status));
}

function statusIs(ids: readonly string[], status: ChunkStatus) {
  return async () => (await chunkStatuses(ids)).every((each) => each === status);
}

describe('a volume that leaves and returns', () => {
  it('marks its replicas missing while away and whole again when back', async () => {
    const bytes = randomBytes(2 * MiB + 3);
    const file = await rest.upload(bytes, { redundancy: 2 });
    expect(file.ul_status).toBe('uploaded');
    renameSync(volumes[1], `${volumes[1]}.away`);
    await waitFor(statusIs(file.chunkIds, 'missing'), 20_000, 'the replicas to be missing');
    expect((await rest.file(file.id)).ul_status).toBe('degraded');
    expect(existsSync(volumes[1])).toBe(false);
    expect(Buffer.from(await rest.fileContent(file.id, 'base64'), 'base64').equals(bytes)).toBe(
      true,
    );

    renameSync(`${volumes[1]}.away`, volumes[1]);
    await waitFor(statusIs(file.chunkIds, 'downloaded'), 20_000, 'the replicas to be back');
    expect((await rest.file(file.id)).ul_status).toBe('uploaded');
  });
});

describe('expiry', () => {
  it('removes a file whose lease ended with its unshared chunks; keeps and renews one with autorenew', async () => {
    const shared = randomBytes(MiB);
    const holder = await rest.upload(Buffer.concat([shared, Buffer.from('holder')]));
    const now = Math.floor(Date.now() / 1000);
    const leased = await rest.upload(Buffer.concat([shared, Buffer.from('leased')]), {
      expires: now + 2,
    });
    const renewing = await rest.upload(randomBytes(1000), {
      expires: Math.floor(Date.now() / 1000) + 2,
      autorenew: true,
    });
    const unshared = leased.chunkIds[1];

    await waitFor(
      () =>
        rest.file(leased.id).then(
          () => false,
          (error: unknown) => error instanceof RestResponseError && error.status === 404,
        ),
      20_000,
      'the expired file to be collected',
    );
    await expect(rest.chunk(unshared)).rejects.toThrow(/not found/);
    // The index forgets the chunk first; its replica files go right after, in the same removal.
    await waitFor(
      () =>
        volumes.every(
          (volume) => !existsSync(join(volume, 'chunks', unshared.slice(0, 2), unshared)),
        ),
      20_000,
      'the unshared chunk replicas to be removed',
    );
    expect((await rest.chunk(holder.chunkIds[0])).belongsToFiles).toEqual([[holder.id, 0, '']]);
    // Renewed by whole leases (its lease is what was left at upload: 2 s or less on a slow
    // machine), by the collector's pass after its expiry, which on a loaded machine may come after
    // the pass that removed the other file.
    await waitFor(
      async () => (await rest.file(renewing.id)).expires > renewing.expires,
      20_000,
      'the autorenewed lease to be renewed',
    );
  });
});

describe('a full volume', () => {
  const maybe = canMountTmpfs ? it : it.skip;
  let small: TmpfsDaemon | undefined;

  afterAll(async () => small?.close());

  maybe('refuses an upload with 507 naming the volume, and lists and keeps nothing', async () => {
    small = await startDaemonOnTmpfs('2m');
    const { client, volume } = small;
    const error = await client
      .upload(randomBytes(5 * MiB), { size: 5 * MiB })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RestResponseError);
    expect((error as RestResponseError).status).toBe(507);
    expect((error as Error).message).toMatch(new RegExp(`storage volume ${volume} is full`));
    expect((await client.files()).files).toEqual([]);
    expect((await client.chunks()).chunks).toEqual([]);
    const left = readdirSync(join(volume, 'chunks')).flatMap((shard) =>
      readdirSync(join(volume, 'chunks', shard)),
    );
    expect(left).toEqual([]);
    const fits = await client.upload(randomBytes(MiB / 2));
    expect(fits.ul_status).toBe('uploaded');
  });
});
