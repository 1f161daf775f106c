/**
 * One storage volume: a directory holding chunk replicas as `chunks/<first two hex digits>/<id>`,
 * each shard directory also holding the temporary files of its writes in progress
 * (`<id>.<pid>.<n>.tmp`).
 *
 * A replica is made durable before anyone is told it exists: the bytes go to a temporary name,
 * are fsynced, renamed to the chunk's name, and the directory is fsynced. A volume whose
 * directory is gone (unmounted, removed) is never re-created here: writing to it fails, so a
 * missing disk cannot silently become an empty directory on the root file system.
 *
 * Chunks in page-aligned buffers (an upload's) are written with O_DIRECT: the bytes go from the
 * buffer to the disk without being copied into the page cache and written back from there. That
 * copy was the largest single cost of an upload (benchmarks.md, "Storage upload"). The fsync
 * that follows is still what makes them durable. A file system that refuses O_DIRECT (EINVAL)
 * gets that write again through the page cache, and so does every later write to the volume.
 * With the native chunk-io addon a replica's write, fsync and rename are one thread-pool job
 * (chunk-io.ts); the steps and their errors are the same.
 *
 * Where the file system has the mark (ext2/3/4, with the addon), `chunks/` is marked as the top
 * of a hierarchy, so its shard directories are spread over the block groups, and a temporary file
 * is made in its chunk's shard, so that it takes an inode of that shard's group. ext4 without a
 * journal checks, for every new inode, each inode of the group freed in the last minute that it
 * passes over: with every replica in one group, an upload after a removal of a few hundred chunks
 * passed over hundreds for each chunk, a fifth of the upload's CPU (benchmarks.md, "Storage
 * upload: inodes and pieces").
 */
import { constants, existsSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { VolumeUnavailableError } from '../../shared/errors.js';
import { directReadRoom, directWritable } from './aligned-buffers.js';
import type { ChunkIo } from './chunk-io.js';
import { CoalescedSync } from './coalesced-sync.js';
import { isContentId } from './content-address.js';

const CHUNKS_DIR = 'chunks';
/** Where temporary files were made before they went to the shards; cleared at start if there. */
const LEGACY_TEMP_DIR = 'tmp';
/** `<chunk id>.<pid>.<n>`, the name of a temporary file in `tmp/`. */
const LEGACY_TEMP_NAME = /^[0-9a-f]{64}\.\d+\.\d+$/;
const TEMP_SUFFIX = '.tmp';

/** O_DIRECT where the platform has it (Linux); 0 elsewhere turns direct writes off. */
const O_DIRECT = constants.O_DIRECT ?? 0;
const DIRECT_WRITE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | O_DIRECT;
const READ_REPLICA = constants.O_RDONLY | constants.O_NONBLOCK;

/** Makes the entries of a directory (renames into it) durable. */
export async function fsyncDir(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A replica as read from a volume: its bytes, and their hex SHA-256 when the read took it. */
export interface ReplicaRead {
  bytes: Buffer;
  sha256Hex?: string;
}

/** Shard directories holding renames not synced yet, each with its volume (`StorageVolume.write`). */
export type UnsyncedDirs = Map<string, StorageVolume>;

/**
 * Syncs every directory of `dirs` at once and answers the volumes where a sync failed, with the
 * failure: the renames into those directories may not be durable (the volume may be gone).
 */
export async function syncDirs(dirs: UnsyncedDirs): Promise<Map<StorageVolume, Error>> {
  const failed = new Map<StorageVolume, Error>();
  await Promise.all(
    [...dirs].map(([dir, volume]) =>
      fsyncDir(dir).catch((error: unknown) => void failed.set(volume, volume.failure(error))),
    ),
  );
  return failed;
}

/** Writes all of `bytes` to a file opened with `flags`, fsyncs and closes it. */
async function writeSynced(path: string, bytes: Uint8Array, flags: string | number): Promise<void> {
  const handle = await open(path, flags);
  try {
    let written = 0;
    while (written < bytes.length) {
      written += (await handle.write(bytes, written, bytes.length - written, written)).bytesWritten;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code;
}

/** Removes the files of `dir` whose names `matches` picks; answers how many it removed. */
async function removeNamed(dir: string, matches: (name: string) => boolean): Promise<number> {
  const names = (await readdir(dir).catch(() => [])).filter(matches);
  const removed = await Promise.all(
    names.map((name) =>
      rm(join(dir, name), { force: true }).then(
        () => true,
        () => false,
      ),
    ),
  );
  return removed.filter(Boolean).length;
}

/** Creates one directory level (never its parents); one that is there already is fine. */
async function mkdirOnce(path: string): Promise<void> {
  await mkdir(path).catch((error: unknown) => {
    if (errnoOf(error) !== 'EEXIST') throw error;
  });
}

export class StorageVolume {
  private tempCounter = 0;
  /** Shard directories this process has made ready for writes (`shardReady`), by path. */
  private readonly shards = new Map<string, Promise<void>>();
  private readonly chunksSync = new CoalescedSync(() => fsyncDir(join(this.path, CHUNKS_DIR)));
  /** Off once the volume's file system refused an O_DIRECT write. */
  private directWrites = O_DIRECT !== 0;

  /** `io`: the native chunk writes (chunk-io.ts); node:fs without. */
  constructor(
    readonly path: string,
    private readonly io?: ChunkIo,
  ) {}

  /** Whether the volume's directory is there (it may still be read-only or full). */
  present(): boolean {
    return existsSync(this.path);
  }

  /**
   * Creates the volume's directory with `chunks/` (marked as a top directory); called once at
   * start for configured volumes. The shard directories under `chunks/` are made by the first
   * write into each (`shardReady`): a node that stores nothing keeps one directory, not 257.
   */
  async create(): Promise<void> {
    try {
      await mkdir(join(this.path, CHUNKS_DIR), { recursive: true });
      this.markChunksTop();
      await fsyncDir(this.path);
    } catch (error) {
      throw this.failure(error);
    }
  }

  chunkPath(id: string): string {
    return join(this.path, CHUNKS_DIR, id.slice(0, 2), id);
  }

  /**
   * The replica's bytes, or undefined when it (or the whole volume) is missing; with the native
   * chunk io, their hash too, taken in the same trip to the thread pool. At most `maxBytes` are
   * read: a replica grown by damage to gigabytes is not read whole into memory (what is read then
   * has the wrong length, and the caller finds it corrupt).
   */
  async read(id: string, maxBytes: number): Promise<ReplicaRead | undefined> {
    if (this.io) {
      const into = Buffer.allocUnsafe(directReadRoom(maxBytes));
      const read = await this.io.readReplica(this.chunkPath(id), into, maxBytes);
      return (
        read && {
          bytes: into.subarray(read.offset, read.offset + read.bytesRead),
          sha256Hex: read.sha256Hex,
        }
      );
    }
    let handle: FileHandle;
    try {
      // Non-blocking, so a FIFO put in a replica's place cannot hold a thread-pool thread.
      handle = await open(this.chunkPath(id), READ_REPLICA);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return undefined;
      throw error;
    }
    try {
      const stats = await handle.stat();
      // Something else in its place (a directory, a device) holds no bytes of the chunk.
      if (!stats.isFile()) return { bytes: Buffer.alloc(0) };
      // One read of the whole file into a buffer of its size (readFile reads in small pieces).
      const size = Math.min(stats.size, maxBytes);
      const bytes = Buffer.allocUnsafe(size);
      let filled = 0;
      while (filled < size) {
        const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return { bytes: bytes.subarray(0, filled) };
    } finally {
      await handle.close();
    }
  }

  /** Whether a replica file of `id` is there (its bytes are checked on read and by the scrubber). */
  async holds(id: string): Promise<boolean> {
    try {
      return (await stat(this.chunkPath(id))).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Writes a replica durably: temporary name, fsync, rename, fsync of the directory. With
   * `unsyncedDirs` the last step is left to the caller, which syncs every directory added to it
   * (`syncDirs`) before it records the replicas (an upload syncs each directory once, not per
   * chunk).
   *
   * @throws VolumeUnavailableError naming the volume when it is gone, full or read-only.
   */
  async write(id: string, bytes: Uint8Array, unsyncedDirs?: UnsyncedDirs): Promise<void> {
    if (!this.present()) {
      throw new VolumeUnavailableError(
        `storage volume ${this.path} is not available (directory missing)`,
      );
    }
    const shard = join(this.path, CHUNKS_DIR, id.slice(0, 2));
    const temp = join(shard, `${id}.${process.pid}.${this.tempCounter++}.tmp`);
    const final = join(shard, id);
    try {
      await this.shardReady(shard);
      await this.writeRenamed(temp, final, bytes).catch(async (error: unknown) => {
        if (errnoOf(error) !== 'ENOENT') throw error;
        await this.restoreLayout(shard);
        await this.writeRenamed(temp, final, bytes);
      });
      if (unsyncedDirs) unsyncedDirs.set(shard, this);
      else await fsyncDir(shard);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw this.failure(error);
    }
  }

  /**
   * The bytes at a temporary name, synced, then renamed to `final`: one write of the whole
   * buffer (O_DIRECT when the buffer allows it), fsync, rename.
   */
  private async writeRenamed(temp: string, final: string, bytes: Uint8Array): Promise<void> {
    const direct = this.directWrites && directWritable(bytes);
    try {
      await this.putReplica(temp, final, bytes, direct);
    } catch (error) {
      if (!direct || errnoOf(error) !== 'EINVAL') throw error;
      this.directWrites = false;
      await this.putReplica(temp, final, bytes, false);
    }
  }

  private async putReplica(
    temp: string,
    final: string,
    bytes: Uint8Array,
    direct: boolean,
  ): Promise<void> {
    if (this.io) return this.io.writeReplica(temp, final, bytes, direct);
    await writeSynced(temp, bytes, direct ? DIRECT_WRITE : 'w');
    await rename(temp, final);
  }

  async remove(id: string): Promise<void> {
    await rm(this.chunkPath(id), { force: true });
  }

  /** Ids of every replica file on the volume (nothing when the volume is missing). */
  async chunkIds(): Promise<string[]> {
    const ids: string[] = [];
    let shards: string[];
    try {
      shards = await readdir(join(this.path, CHUNKS_DIR));
    } catch {
      return ids;
    }
    for (const shard of shards) {
      const names = await readdir(join(this.path, CHUNKS_DIR, shard)).catch(() => []);
      ids.push(...names.filter(isContentId));
    }
    return ids;
  }

  /**
   * Removes the temporary files interrupted writes left in the shards, and in `tmp/` where
   * earlier versions made them (then `tmp/` itself, once empty); answers how many it removed.
   * Only names of such files are touched. One it cannot remove (the volume is read-only) stays:
   * no index names it, and the next start tries again.
   */
  async clearTemp(): Promise<number> {
    const chunks = join(this.path, CHUNKS_DIR);
    const legacy = join(this.path, LEGACY_TEMP_DIR);
    let cleared = await removeNamed(legacy, (name) => LEGACY_TEMP_NAME.test(name));
    await rmdir(legacy).catch(() => undefined);
    for (const shard of await readdir(chunks).catch(() => [])) {
      cleared += await removeNamed(join(chunks, shard), (name) => name.endsWith(TEMP_SUFFIX));
    }
    return cleared;
  }

  /**
   * Settles once the shard directory is there and its entry in `chunks/` is durable: the first
   * write into a shard in this process makes it (or finds it made) and syncs `chunks/`, every
   * later one finds the promise settled. A failed attempt is forgotten, so the next write tries
   * again; a shard removed later is re-created by the write that meets its absence.
   */
  private shardReady(shard: string): Promise<void> {
    let ready = this.shards.get(shard);
    if (ready === undefined) {
      ready = this.makeShard(shard);
      this.shards.set(shard, ready);
      ready.catch(() => this.shards.delete(shard));
    }
    return ready;
  }

  private async makeShard(shard: string): Promise<void> {
    try {
      await mkdirOnce(shard);
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw error;
      return this.restoreLayout(shard);
    }
    // Also when it was there: another process may have made it without syncing `chunks/`.
    await this.chunksSync.sync();
  }

  /**
   * Re-creates a layout directory something removed under a volume that is still there, the
   * volume's own directory never (a vanished volume stays vanished), and syncs the new entries.
   */
  private async restoreLayout(shard: string): Promise<void> {
    await mkdirOnce(join(this.path, CHUNKS_DIR));
    this.markChunksTop();
    await mkdirOnce(shard);
    await fsyncDir(join(this.path, CHUNKS_DIR));
    await fsyncDir(this.path);
  }

  /** Best effort: without the mark (another file system, no addon) the layout is the same. */
  private markChunksTop(): void {
    this.io?.markTopDirectory(join(this.path, CHUNKS_DIR));
  }

  /** `error` of a write to this volume told as what it means for the volume (full, read-only, gone). */
  failure(error: unknown): Error {
    if (error instanceof VolumeUnavailableError) return error;
    const code = errnoOf(error);
    const reason =
      code === 'ENOSPC' || code === 'EDQUOT'
        ? 'is full'
        : code === 'EROFS' || code === 'EACCES' || code === 'EPERM'
          ? 'is read-only'
          : code === 'ENOENT'
            ? 'is not available (directory missing)'
            : code === 'ENOTDIR'
              ? 'has a file where a directory should be'
              : `could not be written`;
    return new VolumeUnavailableError(
      `storage volume ${this.path} ${reason} (${code ?? String(error)})`,
      {
        cause: error,
      },
    );
  }
}
