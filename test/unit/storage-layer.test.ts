/**
 * The storage layer on real volumes (temporary directories, a real LMDB index) without the
 * daemon around it: shared chunks and removal, the volume layout and many chunks in flight,
 * repair of a corrupt replica on read, degraded redundancy, a volume that leaves and comes back,
 * expiry with and without autorenew, and uploads refused by a full or read-only volume (small
 * tmpfs mounts, when the tests may mount). All of it twice: chunks hashed and written by the
 * native addon (native/chunk-io, when it was built) and through WebCrypto and node:fs.
 */
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { StorageEvent } from '../../src/shared/storage-api.js';
import { VolumeUnavailableError } from '../../src/shared/errors.js';
import type { Logger } from '../../src/daemon/logger.js';
import type { KeyedLock } from '../../src/daemon/storage/keyed-lock.js';
import { loadChunkIo, type ChunkIo } from '../../src/daemon/storage/chunk-io.js';
import { StorageLayer } from '../../src/daemon/storage/storage-layer.js';
import { waitFor } from '../helpers/processes.js';
import { canMountTmpfs, mountTmpfs, remountTmpfs, unmountTmpfs } from '../helpers/tmpfs.js';

const CHUNK = 4096;
const quiet: Logger = { error() {}, warn() {}, info() {}, debug() {} };

interface Fixture {
  root: string;
  volumes: string[];
  storage: StorageLayer;
  events: StorageEvent[];
  clock: { now: number };
}

/** How chunks are hashed and written in the tests running now (the `describe.each` below). */
let chunkIo: ChunkIo | undefined;
const nativeChunkIo = loadChunkIo();
const variants: Array<[string, ChunkIo | undefined]> = [
  ['WebCrypto and node:fs', undefined],
  ...(nativeChunkIo ? [['the chunk-io addon', nativeChunkIo] as [string, ChunkIo]] : []),
];

const open: Fixture[] = [];
const mounts: string[] = [];

afterEach(async () => {
  for (const fixture of open.splice(0)) {
    await fixture.storage.close();
    rmSync(fixture.root, { recursive: true, force: true });
  }
  for (const mount of mounts.splice(0)) unmountTmpfs(mount);
});

/** Storage on `volumeCount` fresh volumes or on `volumes`; its index under `root` (fresh by default). */
async function openStorage(
  volumeCount: number,
  volumes?: string[],
  root = mkdtempSync(join(tmpdir(), 'node-cli-storage-')),
): Promise<Fixture> {
  const paths = volumes ?? Array.from({ length: volumeCount }, (_, i) => join(root, `v${i}`));
  const events: StorageEvent[] = [];
  const clock = { now: 1_800_000_000 };
  const storage = await StorageLayer.open({
    indexDir: join(root, 'index'),
    volumes: paths,
    chunkSize: CHUNK,
    maxUploadSize: 1 << 20,
    publish: (event) => events.push(event),
    logger: quiet,
    now: () => clock.now,
    chunkIo,
  });
  const fixture = { root, volumes: paths, storage, events, clock };
  open.push(fixture);
  return fixture;
}

function upload(
  storage: StorageLayer,
  bytes: Buffer,
  redundancy = 1,
  lease = { expires: 0, autorenew: false },
) {
  return storage.upload(Readable.from([bytes]), { localPath: 'f', redundancy, ...lease });
}

async function read(storage: StorageLayer, id: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of storage.content(id)) parts.push(part);
  return Buffer.concat(parts);
}

function replicaPath(volume: string, id: string): string {
  return join(volume, 'chunks', id.slice(0, 2), id);
}

describe.each(variants)('chunks through %s', (_name, variantIo) => {
  beforeAll(() => {
    chunkIo = variantIo;
  });

  describe('shared chunks', () => {
    it('two files share their common chunks; removing one keeps the other readable', async () => {
      const { storage } = await openStorage(1);
      const common = randomBytes(2 * CHUNK);
      const a = await upload(storage, Buffer.concat([common, Buffer.from('A')]));
      const b = await upload(storage, Buffer.concat([common, Buffer.from('B')]));
      expect(a.chunkIds.slice(0, 2)).toEqual(b.chunkIds.slice(0, 2));
      expect(storage.chunkDetail(a.chunkIds[0]).belongsToFiles).toEqual([
        [a.id, 0, 'f'],
        [b.id, 0, 'f'],
      ]);
      expect(storage.chunks(undefined, 100).items).toHaveLength(4);

      await storage.remove(a.id);
      expect(() => storage.fileDetail(a.id)).toThrow(/not found/);
      expect(storage.chunkDetail(a.chunkIds[0]).belongsToFiles).toEqual([[b.id, 0, 'f']]);
      expect(() => storage.chunkDetail(a.chunkIds[2])).toThrow(/not found/);
      expect(await read(storage, b.id)).toEqual(Buffer.concat([common, Buffer.from('B')]));
      expect(storage.fileCount()).toBe(1);
    });

    it('stores a chunk once per volume even when a file repeats it, with one write', async () => {
      const { storage, volumes } = await openStorage(1);
      const volume = storage.replicas.volumes[0];
      const write = volume.write.bind(volume);
      let writes = 0;
      volume.write = (...args: Parameters<typeof write>) => {
        writes += 1;
        return write(...args);
      };
      const block = randomBytes(CHUNK);
      const file = await upload(storage, Buffer.concat([block, block, block]));
      expect(new Set(file.chunkIds).size).toBe(1);
      expect(
        storage.chunkDetail(file.chunkIds[0]).belongsToFiles.map(([, index]) => index),
      ).toEqual([0, 1, 2]);
      expect(existsSync(replicaPath(volumes[0], file.chunkIds[0]))).toBe(true);
      expect(writes).toBe(1);
    });
  });

  describe('a volume that is a file', () => {
    it('refuses the upload saying so', async () => {
      const root = mkdtempSync(join(tmpdir(), 'node-cli-not-a-dir-'));
      try {
        writeFileSync(join(root, 'volume'), 'not a directory');
        const { storage } = await openStorage(0, [join(root, 'volume')]);
        await expect(upload(storage, randomBytes(10))).rejects.toThrow(
          /storage volume \S+volume has a file where a directory should be \(ENOTDIR\)/,
        );
        expect(storage.fileCount()).toBe(0);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  });

  describe('concurrent work on one chunk', () => {
    it('a removal and an upload of the same chunk at once: every replica the upload lists is on disk', async () => {
      const { storage, volumes } = await openStorage(2);
      const bytes = randomBytes(CHUNK);
      const first = await upload(storage, bytes, 2);
      const [id] = first.chunkIds;
      // The removal is held just before it deletes the replica on the second volume.
      const gated = storage.replicas.volumes[1];
      const removeReplica = gated.remove.bind(gated);
      let reached!: () => void;
      let open!: () => void;
      const atGate = new Promise<void>((resolve) => (reached = resolve));
      const gate = new Promise<void>((resolve) => (open = resolve));
      gated.remove = async (chunk: string) => {
        reached();
        await gate;
        return removeReplica(chunk);
      };
      const removal = storage.remove(first.id);
      await atGate;
      let stored = false;
      const again = upload(storage, Buffer.concat([bytes, Buffer.from('x')]), 2).then((file) => {
        stored = true;
        return file;
      });
      // Until the upload is stored, or is waiting for the removal to finish with the chunk.
      const locks = (storage as unknown as { chunkLocks?: KeyedLock }).chunkLocks;
      await waitFor(() => stored || (locks?.queued(id) ?? 0) > 1, 10_000, 'the upload');
      open();
      await removal;
      const second = await again;
      expect(storage.chunkDetail(id).dl_status).toBe('downloaded');
      for (const volume of volumes) expect(existsSync(replicaPath(volume, id))).toBe(true);
      expect(await read(storage, second.id)).toEqual(Buffer.concat([bytes, Buffer.from('x')]));
    });
  });

  describe('removal during downloads', () => {
    it('lets every running download of the file finish; the last one removes its chunks', async () => {
      const { storage, volumes } = await openStorage(1);
      const shared = randomBytes(CHUNK);
      const bytes = Buffer.concat([randomBytes(20 * CHUNK), shared]);
      const file = await upload(storage, bytes);
      const keeper = await upload(storage, Buffer.concat([shared, Buffer.from('kept')]));
      const first = storage.content(file.id);
      const second = storage.content(file.id);
      const firstParts = [(await first.next()).value as Buffer];
      const secondParts = [(await second.next()).value as Buffer];

      await storage.remove(file.id);
      expect(() => storage.fileDetail(file.id)).toThrow(/not found/);
      for await (const part of first) firstParts.push(part);
      expect(Buffer.concat(firstParts)).toEqual(bytes);
      // The other download still reads them.
      const own = file.chunkIds.filter((id) => !keeper.chunkIds.includes(id));
      expect(own.every((id) => existsSync(replicaPath(volumes[0], id)))).toBe(true);
      await storage.collectOrphans();
      expect(own.every((id) => existsSync(replicaPath(volumes[0], id)))).toBe(true);

      for await (const part of second) secondParts.push(part);
      expect(Buffer.concat(secondParts)).toEqual(bytes);
      expect(own.some((id) => existsSync(replicaPath(volumes[0], id)))).toBe(false);
      expect(await read(storage, keeper.id)).toEqual(Buffer.concat([shared, Buffer.from('kept')]));
    });
  });

  describe('removal twice at once', () => {
    it('removes the file once: the other removal is a not-found and one event goes out', async () => {
      const { storage, events } = await openStorage(1);
      const file = await upload(storage, randomBytes(CHUNK + 1));
      const results = await Promise.allSettled([storage.remove(file.id), storage.remove(file.id)]);
      expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = results.find(
        (result) => result.status === 'rejected',
      ) as PromiseRejectedResult;
      expect(String(refused.reason)).toMatch(/not found/);
      const removals = events.filter(
        (event) => event.type === 'file' && event.data.ul_status === 'removed',
      );
      expect(removals).toHaveLength(1);
    });
  });

  describe('transfers', () => {
    it('a volume starts with chunks/ only; a write makes its shard, and chunks/ removed under it comes back', async () => {
      const { storage, volumes } = await openStorage(1);
      const chunks = join(volumes[0], 'chunks');
      expect(readdirSync(volumes[0])).toEqual(['chunks']);
      expect(readdirSync(chunks)).toEqual([]);
      const bytes = randomBytes(CHUNK);
      const id = createHash('sha256').update(bytes).digest('hex');
      const first = await upload(storage, bytes);
      expect(readdirSync(chunks)).toEqual([id.slice(0, 2)]);
      await storage.remove(first.id);
      rmSync(chunks, { recursive: true });
      const file = await upload(storage, bytes);
      expect(file.chunkIds).toEqual([id]);
      expect(readFileSync(replicaPath(volumes[0], id))).toEqual(bytes);
    });

    it('an open removes the temporary files interrupted writes left in the shards and in an old tmp/, and nothing else', async () => {
      const first = await openStorage(1);
      const bytes = randomBytes(CHUNK);
      const id = createHash('sha256').update(bytes).digest('hex');
      await upload(first.storage, bytes);
      await first.storage.close();
      const shard = join(first.volumes[0], 'chunks', id.slice(0, 2));
      writeFileSync(join(shard, `${id}.1.0.tmp`), bytes.subarray(0, 100));
      mkdirSync(join(first.volumes[0], 'tmp'));
      writeFileSync(join(first.volumes[0], 'tmp', `${id}.1.1`), bytes.subarray(0, 100));
      let again = await openStorage(0, first.volumes, first.root);
      expect(readdirSync(first.volumes[0])).toEqual(['chunks']);
      expect(readdirSync(shard)).toEqual([id]);
      await again.storage.close();
      // A volume directory an operator also keeps other things in: those stay.
      mkdirSync(join(first.volumes[0], 'tmp'));
      writeFileSync(join(first.volumes[0], 'tmp', `${id}.2.0`), 'partial');
      writeFileSync(join(first.volumes[0], 'tmp', 'notes.txt'), 'mine');
      again = await openStorage(0, first.volumes, first.root);
      expect(readdirSync(join(first.volumes[0], 'tmp'))).toEqual(['notes.txt']);
      expect(readFileSync(replicaPath(first.volumes[0], id))).toEqual(bytes);
      expect(again.storage.chunks(undefined, 10).items.map((chunk) => chunk.id)).toEqual([id]);
    });

    it('many more chunks than are in flight, arriving in odd pieces, read back byte for byte', async () => {
      const { storage } = await openStorage(2);
      const bytes = randomBytes(40 * CHUNK + 123);
      const pieces: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += 1000) pieces.push(bytes.subarray(at, at + 1000));
      const file = await storage.upload(Readable.from(pieces), {
        localPath: 'f',
        redundancy: 2,
        expires: 0,
        autorenew: false,
      });
      expect(file.chunkIds).toEqual(
        Array.from({ length: 41 }, (_, i) =>
          createHash('sha256')
            .update(bytes.subarray(i * CHUNK, (i + 1) * CHUNK))
            .digest('hex'),
        ),
      );
      expect(await read(storage, file.id)).toEqual(bytes);
    });

    it("an upload's whole chunks are written past the page cache (O_DIRECT), its shorter last chunk through it", async () => {
      const { storage, volumes, root } = await openStorage(1);
      const bytes = randomBytes(6 * CHUNK + 100);
      const file = await upload(storage, bytes);
      const paths = file.chunkIds.map((id) => replicaPath(volumes[0], id));
      // Where the file system or util-linux cannot tell (no O_DIRECT, no fincore), only the bytes are checked.
      if (takesDirectWrites(root) && hasFincore()) {
        expect(paths.map(cachedBytes)).toEqual([0, 0, 0, 0, 0, 0, 4096]);
      }
      expect(await read(storage, file.id)).toEqual(bytes);
    });
  });

  function takesDirectWrites(dir: string): boolean {
    try {
      execFileSync(
        'dd',
        ['if=/dev/zero', `of=${join(dir, 'probe')}`, 'bs=4096', 'count=1', 'oflag=direct'],
        {
          stdio: 'ignore',
        },
      );
      return true;
    } catch {
      return false;
    }
  }

  function hasFincore(): boolean {
    try {
      execFileSync('fincore', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }

  /** Bytes of `path` in the page cache. */
  function cachedBytes(path: string): number {
    return Number(
      execFileSync('fincore', ['--bytes', '--noheadings', '--raw', '-o', 'RES', path], {
        encoding: 'utf8',
      }).trim(),
    );
  }

  describe('replicas', () => {
    it('a replica grown by damage is found corrupt from its first bytes past the length, and rewritten', async () => {
      const { storage, volumes } = await openStorage(2);
      const bytes = randomBytes(CHUNK);
      const file = await upload(storage, bytes, 2);
      const [id] = file.chunkIds;
      // 64 MiB more, sparse: nothing on disk, but a read of the whole file would hold it all.
      truncateSync(replicaPath(volumes[0], id), 64 * 1024 * 1024);
      const volume = storage.replicas.volume(volumes[0]);
      expect((await volume?.read(id, CHUNK + 1))?.bytes.length).toBe(CHUNK + 1);
      expect(await storage.scrub(id)).toBe(1);
      expect(readFileSync(replicaPath(volumes[0], id)).equals(bytes)).toBe(true);
      expect(storage.chunkDetail(id).dl_status).toBe('downloaded');
    });

    it('a FIFO or a directory in place of a replica is corrupt, the read is served from the other replica', async () => {
      const { storage, volumes } = await openStorage(2);
      const bytes = randomBytes(CHUNK * 2);
      const file = await upload(storage, bytes, 2);
      const [fifo, directory] = file.chunkIds;
      rmSync(replicaPath(volumes[0], fifo));
      execFileSync('mkfifo', [replicaPath(volumes[0], fifo)]);
      rmSync(replicaPath(volumes[1], directory));
      mkdirSync(replicaPath(volumes[1], directory));
      expect(await read(storage, file.id)).toEqual(bytes);
      expect(readFileSync(replicaPath(volumes[0], fifo)).equals(bytes.subarray(0, CHUNK))).toBe(
        true,
      );
      expect(await storage.scrub(directory)).toBe(1);
      expect(storage.chunkDetail(directory).dl_status).toBe('missing');
    });

    it('a corrupt replica is detected on read, served from the other volume and rewritten', async () => {
      const { storage, volumes, events } = await openStorage(2);
      const bytes = randomBytes(3 * CHUNK);
      const file = await upload(storage, bytes, 2);
      expect(file.ul_status).toBe('uploaded');
      const id = file.chunkIds[1];
      for (const volume of volumes) expect(existsSync(replicaPath(volume, id))).toBe(true);
      const damaged = Buffer.from(readFileSync(replicaPath(volumes[0], id)));
      damaged[100] ^= 0xff;
      writeFileSync(replicaPath(volumes[0], id), damaged);
      // The first volume is read first: the read finds the damage, answers from the second
      // volume and rewrites the first before it answers.
      expect(await read(storage, file.id)).toEqual(bytes);
      expect(readFileSync(replicaPath(volumes[0], id))).toEqual(bytes.subarray(CHUNK, 2 * CHUNK));
      expect(storage.chunkDetail(id).dl_status).toBe('downloaded');
      const replicaEvents = events.filter((e) => e.type === 'chunk' && e.data.id === id);
      expect(replicaEvents.map((e) => e.type === 'chunk' && e.data.replica)).toEqual(
        expect.arrayContaining(['corrupt', 'repairing', 'ok']),
      );
    });

    it('asks for 3 replicas on 2 volumes: degraded, and readable', async () => {
      const { storage } = await openStorage(2);
      const bytes = randomBytes(CHUNK + 1);
      const file = await upload(storage, bytes, 3);
      expect(file.ul_status).toBe('degraded');
      expect(storage.chunkDetail(file.chunkIds[0]).ul_status).toBe('degraded');
      expect(storage.chunkDetail(file.chunkIds[0]).dl_status).toBe('downloaded');
      await storage.scrub(file.chunkIds[0]);
      expect(storage.fileDetail(file.id).ul_status).toBe('degraded');
      expect(await read(storage, file.id)).toEqual(bytes);
    });

    it('a volume directory removed marks its replicas missing; when it returns they are good again', async () => {
      const { storage, volumes } = await openStorage(2);
      const bytes = randomBytes(2 * CHUNK);
      const file = await upload(storage, bytes, 2);
      renameSync(volumes[1], `${volumes[1]}.away`);
      for (const id of file.chunkIds) await storage.scrub(id);
      expect(file.chunkIds.map((id) => storage.chunkDetail(id).dl_status)).toEqual([
        'missing',
        'missing',
      ]);
      expect(storage.fileDetail(file.id).ul_status).toBe('degraded');
      expect(existsSync(volumes[1])).toBe(false);
      expect(await read(storage, file.id)).toEqual(bytes);

      renameSync(`${volumes[1]}.away`, volumes[1]);
      for (const id of file.chunkIds) await storage.scrub(id);
      expect(file.chunkIds.map((id) => storage.chunkDetail(id).dl_status)).toEqual([
        'downloaded',
        'downloaded',
      ]);
      expect(storage.fileDetail(file.id).ul_status).toBe('uploaded');
    });

    it('a volume taken out of the configuration: its replicas are made again on another, then forgotten', async () => {
      const first = await openStorage(2);
      const bytes = randomBytes(2 * CHUNK);
      const file = await upload(first.storage, bytes, 2);
      await first.storage.close();
      open.splice(open.indexOf(first), 1);

      // Only the first volume: nowhere to make a second replica, so the retired one stays missing.
      const alone = await openStorage(0, [first.volumes[0]], first.root);
      for (const id of file.chunkIds) await alone.storage.scrub(id);
      expect(file.chunkIds.map((id) => alone.storage.chunkDetail(id).dl_status)).toEqual([
        'missing',
        'missing',
      ]);
      expect(alone.storage.fileDetail(file.id).ul_status).toBe('degraded');
      await alone.storage.close();
      open.splice(open.indexOf(alone), 1);

      // A new volume in its place: the scrubber writes the second replicas there and forgets
      // the retired volume's.
      const replacement = join(first.root, 'v2');
      const { storage } = await openStorage(0, [first.volumes[0], replacement], first.root);
      for (const id of file.chunkIds) await storage.scrub(id);
      expect(file.chunkIds.map((id) => storage.chunkDetail(id).dl_status)).toEqual([
        'downloaded',
        'downloaded',
      ]);
      expect(storage.fileDetail(file.id).ul_status).toBe('uploaded');
      for (const id of file.chunkIds) {
        expect(readFileSync(replicaPath(replacement, id))).toEqual(
          bytes.subarray(
            file.chunkIds.indexOf(id) * CHUNK,
            (file.chunkIds.indexOf(id) + 1) * CHUNK,
          ),
        );
      }
      expect(await read(storage, file.id)).toEqual(bytes);
    });

    it('a volume reached by another path than before (its data directory moved) keeps its replicas: they are verified and recorded under the new path', async () => {
      const first = await openStorage(1);
      const bytes = randomBytes(2 * CHUNK + 5);
      const file = await upload(first.storage, bytes);
      const corrupt = await upload(first.storage, randomBytes(CHUNK));
      await first.storage.close();
      open.splice(open.indexOf(first), 1);
      const moved = join(first.root, 'moved');
      renameSync(first.volumes[0], moved);
      // A replica damaged on the way is not taken for the chunk: it is removed as an orphan.
      writeFileSync(replicaPath(moved, corrupt.chunkIds[0]), 'not the chunk');

      const { storage, events } = await openStorage(0, [moved], first.root);
      for (const id of file.chunkIds) expect(existsSync(replicaPath(moved, id))).toBe(true);
      expect(await read(storage, file.id)).toEqual(bytes);
      expect(storage.fileDetail(file.id).ul_status).toBe('uploaded');
      expect(file.chunkIds.map((id) => storage.chunkDetail(id).dl_status)).toEqual(
        file.chunkIds.map(() => 'downloaded'),
      );
      const adopted = events.flatMap((event) =>
        event.type === 'chunk' && event.data.volume === moved
          ? [[event.data.id, event.data.replica]]
          : [],
      );
      expect(adopted.sort()).toEqual(file.chunkIds.map((id) => [id, 'ok']).sort());
      expect(existsSync(replicaPath(moved, corrupt.chunkIds[0]))).toBe(false);
      await storage.scrub(corrupt.chunkIds[0]);
      expect(storage.fileDetail(corrupt.id).ul_status).toBe('degraded');
    });

    it('a lost or emptied index is refused while a volume holds replicas, and nothing is removed', async () => {
      const first = await openStorage(1);
      const file = await upload(first.storage, randomBytes(2 * CHUNK));
      await first.storage.close();
      open.splice(open.indexOf(first), 1);
      const index = join(first.root, 'index');
      const refused = () =>
        expect(openStorage(0, first.volumes, first.root)).rejects.toThrow(
          /storage index .* is missing or empty, but storage volume .* holds 2 chunk replicas/,
        );

      writeFileSync(join(index, 'data.mdb'), '');
      await refused();
      rmSync(index, { recursive: true });
      await refused();
      // Refused twice: the first refusal made no new index that a second start would trust.
      await refused();
      for (const id of file.chunkIds)
        expect(existsSync(replicaPath(first.volumes[0], id))).toBe(true);

      // The way out the message names: the chunks moved away, the layer starts empty.
      renameSync(join(first.volumes[0], 'chunks'), join(first.root, 'chunks.away'));
      const { storage } = await openStorage(0, first.volumes, first.root);
      expect(storage.fileCount()).toBe(0);
    });

    it('a volume that returns empty gets its replicas rewritten by the scrubber', async () => {
      const { storage, volumes } = await openStorage(2);
      const file = await upload(storage, randomBytes(CHUNK), 2);
      rmSync(volumes[0], { recursive: true });
      await storage.scrub(file.chunkIds[0]);
      expect(storage.chunkDetail(file.chunkIds[0]).dl_status).toBe('missing');
      mkdirSync(volumes[0]);
      await storage.scrub(file.chunkIds[0]);
      expect(existsSync(replicaPath(volumes[0], file.chunkIds[0]))).toBe(true);
      expect(storage.chunkDetail(file.chunkIds[0]).dl_status).toBe('downloaded');
    });
  });

  describe('expiry', () => {
    it('removes an expired file with its unshared chunks; renews one with autorenew by its lease', async () => {
      const { storage, clock, volumes } = await openStorage(1);
      const shared = randomBytes(CHUNK);
      const keeper = await upload(storage, Buffer.concat([shared, Buffer.from('keep')]));
      const leased = await upload(storage, Buffer.concat([shared, Buffer.from('lease')]), 1, {
        expires: clock.now + 60,
        autorenew: false,
      });
      const renewed = await upload(storage, Buffer.from('renewed'), 1, {
        expires: clock.now + 60,
        autorenew: true,
      });
      clock.now += 61;
      expect(await storage.collectExpired()).toBe(1);
      expect(() => storage.fileDetail(leased.id)).toThrow(/not found/);
      expect(existsSync(replicaPath(volumes[0], leased.chunkIds[1]))).toBe(false);
      expect(existsSync(replicaPath(volumes[0], leased.chunkIds[0]))).toBe(true);
      expect(storage.fileDetail(keeper.id).size).toBe(CHUNK + 4);
      expect(storage.fileDetail(renewed.id).expires).toBe(renewed.expires + 60);
      clock.now += 600;
      await storage.collectExpired();
      expect(storage.fileDetail(renewed.id).expires).toBeGreaterThan(clock.now);
    });

    it('an autorenewed file whose upload outlasted its lease is renewed, not removed', async () => {
      const { storage, clock } = await openStorage(1);
      const expires = clock.now + 10;
      // The clock passes the expiry while the bytes are still arriving.
      const slow = Readable.from(
        (function* () {
          yield randomBytes(CHUNK);
          clock.now += 30;
          yield randomBytes(10);
        })(),
      );
      const file = await storage.upload(slow, {
        localPath: 'slow',
        redundancy: 1,
        expires,
        autorenew: true,
      });
      await storage.collectExpired();
      expect(storage.fileDetail(file.id).expires).toBe(expires + 30);
    });

    it('refuses an expiry in the past', async () => {
      const { storage, clock } = await openStorage(1);
      await expect(
        upload(storage, Buffer.from('x'), 1, { expires: clock.now - 1, autorenew: false }),
      ).rejects.toThrow(/not in the future/);
    });
  });

  /** A tmpfs of `size`, unmounted after the test (undefined where the tests may not mount). */
  function tmpfs(size: string): string | undefined {
    const dir = mountTmpfs(size);
    if (dir) mounts.push(dir);
    return dir;
  }

  describe.each([canMountTmpfs ? 'mounted' : 'skipped'])('volumes that refuse writes (%s)', () => {
    const maybe = canMountTmpfs ? it : it.skip;

    maybe('a full volume refuses the upload with a clear error and lists nothing', async () => {
      const small = tmpfs('64k') as string;
      const { storage } = await openStorage(0, [join(small, 'v')]);
      const error = await upload(storage, randomBytes(40 * CHUNK)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VolumeUnavailableError);
      expect((error as Error).message).toMatch(/storage volume .* is full/);
      expect(storage.fileCount()).toBe(0);
      expect(storage.chunks(undefined, 100).items).toEqual([]);
      expect(await storage.collectOrphans()).toBe(0);
    });

    maybe(
      'a volume that refuses a repair is left alone for a while, not retried at every check',
      async () => {
        const [good, frozen] = [tmpfs('1m') as string, tmpfs('1m') as string];
        const volumes = [join(good, 'v'), join(frozen, 'v')];
        const { storage, events } = await openStorage(0, volumes);
        const bytes = randomBytes(100);
        const file = await upload(storage, bytes, 2);
        const [id] = file.chunkIds;
        rmSync(replicaPath(volumes[1], id));
        remountTmpfs(frozen, 'ro');
        for (let check = 0; check < 3; check += 1) await storage.scrub(id);
        const attempts = events.filter(
          (event) => event.type === 'chunk' && event.data.replica === 'repairing',
        );
        expect(attempts).toHaveLength(1);
        expect(storage.chunkDetail(id).dl_status).toBe('missing');
        expect(await read(storage, file.id)).toEqual(bytes);
      },
    );

    maybe('a read-only volume refuses the upload naming it read-only', async () => {
      const readOnly = tmpfs('1m') as string;
      mkdirSync(join(readOnly, 'v'));
      remountTmpfs(readOnly, 'ro');
      const { storage } = await openStorage(0, [join(readOnly, 'v')]);
      await expect(upload(storage, randomBytes(10))).rejects.toThrow(
        /storage volume .* is read-only/,
      );
      expect(storage.fileCount()).toBe(0);
    });
  });
});
