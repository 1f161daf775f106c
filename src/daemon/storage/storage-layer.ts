/**
 * The storage layer: content-addressed files split into chunks, kept as replicas on storage
 * volumes, described by the storage index. docs/storage.md is the design note; in short:
 *
 * - An upload streams into fixed-size chunks; each chunk's replicas are durable on their
 *   volumes before one index transaction lists the file, so nothing half-written is listed.
 *   An upload the node did not finish (stopped, killed) is marked failed at the next start and
 *   the bytes it left are collected.
 * - Every read hashes what it reads; a missing or corrupt replica is served from a good one and
 *   rewritten. The scrubber walks the chunks at a set rate and does the same to each replica.
 * - A chunk lives as long as a file holds it; removing or expiring a file removes only the
 *   chunks no other file holds, and never bytes an upload in progress is using.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type {
  ChunkDetail,
  ChunkListItem,
  ChunkStatus,
  FileDetail,
  FileListItem,
  ReplicaState,
  StorageEvent,
  UploadStatus,
} from '../../shared/storage-api.js';
import {
  ChunkLostError,
  DamagedStoreError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  RequestTimeoutError,
} from '../../shared/errors.js';
import { beginBulkTransfer } from '../heap-growth.js';
import type { Logger } from '../logger.js';
import { pageAlignedBuffers } from './aligned-buffers.js';
import { chunkIdOfAsync, fileIdOf } from './content-address.js';
import { OrderedWindow } from './ordered-window.js';
import { bodyChunks } from './body-chunks.js';
import { ReplicaSet } from './replica-set.js';
import { StorageIndex, type ChunkRecord, type FileRecord } from './storage-index.js';
import { KeyedLock } from './keyed-lock.js';
import type { ChunkIo } from './chunk-io.js';
import { StorageVolume, syncDirs, type UnsyncedDirs } from './volume.js';

export interface StorageLimits {
  chunkSize: number;
  /** Largest upload in bytes (`--storage.max-upload-size`). */
  maxUploadSize: number;
  /** How long an upload waits for its next bytes (`--storage.upload-idle-timeout`); no limit without. */
  uploadIdleTimeoutMs?: number;
}

export interface StorageLayerOptions extends StorageLimits {
  /** The LMDB environment of the index. */
  indexDir: string;
  /** Volume directories, in order; created when missing at start. */
  volumes: readonly string[];
  publish(event: StorageEvent): void;
  logger: Logger;
  /** Unix seconds now; tests of expiry may move it. */
  now?: () => number;
  /** The native chunk hashing and writes (chunk-io.ts); WebCrypto and node:fs without. */
  chunkIo?: ChunkIo;
}

export interface UploadParams {
  localPath: string;
  redundancy: number;
  /** Unix seconds, 0 = never. */
  expires: number;
  autorenew: boolean;
  /** The request's Content-Length, when it sent one: refused at once when over the limit. */
  declaredSize?: number;
}

/** A page of a list and the cursor of the next one (absent on the last page). */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

interface StoredChunk {
  id: string;
  length: number;
  volumes: string[];
}

/**
 * Chunks of one download read at once: enough to keep the disk busy while one is sent, and a
 * bound on what a download holds in memory.
 */
const CHUNKS_IN_FLIGHT = 4;

/**
 * Chunks of one upload hashed and written at once, while the socket is read: with four, the
 * upload waited on the pool's round trips with both cores partly idle (docs/benchmarks.md,
 * "Storage upload on chunk I/O threads"). Also a bound on what an upload holds in memory (one
 * buffer more than this).
 */
const UPLOAD_CHUNKS_IN_FLIGHT = 12;

/**
 * How long repairs leave a volume alone after a repair write to it failed (read-only, full):
 * retrying at every read and scrubber step would log two warnings and commit three index
 * changes each time, for as long as the volume stays so.
 */
const REPAIR_PAUSE_MS = 60_000;

/** Chunk buffers an upload needs: one per chunk in flight and one filling, fewer for a small file. */
function buffersFor(declaredSize: number | undefined, chunkSize: number): number {
  const chunks = declaredSize === undefined ? Infinity : Math.ceil(declaredSize / chunkSize);
  return Math.max(1, Math.min(UPLOAD_CHUNKS_IN_FLIGHT + 1, chunks));
}

const unixNow = (): number => Math.floor(Date.now() / 1000);

const fileNotFound = (id: string) => new NotFoundError(`file ${id} not found`);

/** dl_status of a chunk from the states of its replicas: the worst one wins. */
export function chunkStatusOf(replicas: Record<string, ReplicaState>): ChunkStatus {
  const states = Object.values(replicas);
  if (states.includes('repairing')) return 'repairing';
  if (states.includes('corrupt')) return 'corrupt';
  if (states.includes('missing') || states.length === 0) return 'missing';
  return 'downloaded';
}

/**
 * Refuses to start the layer on a new index while a volume holds replicas: the index was lost
 * (removed, emptied), and the start's orphan collection would remove every replica it does not
 * list, that is all of them.
 */
async function refuseUnlistedReplicas(
  indexDir: string,
  volumes: readonly StorageVolume[],
): Promise<void> {
  for (const volume of volumes) {
    const held = volume.present() ? (await volume.chunkIds()).length : 0;
    if (held === 0) continue;
    throw new DamagedStoreError(
      `the storage index ${indexDir} is missing or empty, but storage volume ${volume.path} ` +
        `holds ${held} chunk replicas: the index is the only record of the files they belong ` +
        `to, and a start without it would remove them. Restore the data directory from a ` +
        `backup, or move the chunks/ directory of every storage volume away to start with an ` +
        `empty storage layer`,
    );
  }
}

function goodReplicas(record: ChunkRecord): number {
  return Object.values(record.replicas).filter((state) => state === 'ok').length;
}

export class StorageLayer {
  /** Chunk ids an upload in progress uses, with how many uploads use each. */
  private readonly inUse = new Map<string, number>();
  /** Taken for every check of the index that ends in creating or removing a replica file. */
  private readonly chunkLocks = new KeyedLock();
  /**
   * Volumes (by path) where replica files no file holds may have stayed (the volume was away,
   * read-only or failing when they were to be removed); the collector looks over each once it
   * is there.
   */
  private readonly strayVolumes = new Set<string>();
  /** Volumes (by path) refused a repair write, with when repairs may try them again (ms). */
  private readonly repairPausedUntil = new Map<string, number>();
  /** Files being downloaded, with how many downloads of each are running. */
  private readonly downloads = new Map<string, number>();
  /**
   * The chunks of files removed while being downloaded that no other file holds: gone from the
   * index, their replica files kept (and read from) until the file's last download ends.
   */
  private readonly retiring = new Map<string, Map<string, ChunkRecord>>();
  private readonly fileStatus = new Map<string, UploadStatus>();
  private readonly now: () => number;

  private constructor(
    private readonly options: StorageLayerOptions,
    private readonly index: StorageIndex,
    readonly replicas: ReplicaSet,
  ) {
    this.now = options.now ?? unixNow;
  }

  /** Opens the index and the volumes, then fails the uploads a stop interrupted and collects their bytes. */
  static async open(options: StorageLayerOptions): Promise<StorageLayer> {
    const { chunkIo } = options;
    const volumes = options.volumes.map((path) => new StorageVolume(path, chunkIo));
    for (const volume of volumes) {
      // A volume that cannot be prepared (read-only, gone) still serves what it holds; writes
      // to it fail with a clear error, and the scrubber reports its replicas.
      await volume.create().catch((error: unknown) =>
        options.logger.warn('storage volume not writable', {
          volume: volume.path,
          error: String((error as Error).message),
        }),
      );
    }
    if (!StorageIndex.exists(options.indexDir)) {
      await refuseUnlistedReplicas(options.indexDir, volumes);
    }
    const layer = new StorageLayer(
      options,
      await StorageIndex.open(options.indexDir),
      new ReplicaSet(volumes, chunkIo ? (bytes) => chunkIo.sha256Hex(bytes) : chunkIdOfAsync),
    );
    await layer.recover();
    return layer;
  }

  get chunkSize(): number {
    return this.options.chunkSize;
  }

  fileCount(): number {
    return this.index.fileCount();
  }

  // ---- uploads ----

  /** Stores a stream as a file and answers its detail (the same file again if already stored). */
  async upload(source: Readable, params: UploadParams): Promise<FileDetail> {
    const { maxUploadSize, chunkSize, uploadIdleTimeoutMs } = this.options;
    const tooLarge = () =>
      new PayloadTooLargeError(
        `upload larger than ${maxUploadSize} bytes (set by --storage.max-upload-size)`,
      );
    if (params.declaredSize !== undefined && params.declaredSize > maxUploadSize) throw tooLarge();
    // Leases count from here: an upload that outlasts its own lease must still get a positive one.
    const startedAt = this.now();
    if (params.expires !== 0 && params.expires <= startedAt) {
      throw new InvalidInputError(
        `expires ${params.expires} is not in the future (unix seconds, 0 = never)`,
      );
    }
    const uploadId = `upload-${randomBytes(8).toString('hex')}`;
    this.announce(uploadId, 'queued', params.localPath);
    await this.index
      .change('the upload record', (w) =>
        w.putUpload({
          id: uploadId,
          localPath: params.localPath,
          status: 'uploading',
          startedAt,
        }),
      )
      .catch((error: unknown) => {
        this.announce(uploadId, 'failed', params.localPath, (error as Error).message);
        this.fileStatus.delete(uploadId);
        throw error;
      });
    this.announce(uploadId, 'uploading', params.localPath);
    const stored: StoredChunk[] = [];
    const releaseHeld = () => {
      for (const { id } of stored.splice(0)) if (id) this.release(id);
    };
    let size = 0;
    const endTransfer = beginBulkTransfer();
    try {
      const writes = new OrderedWindow<void>(UPLOAD_CHUNKS_IN_FLIGHT);
      const unsyncedDirs: UnsyncedDirs = new Map();
      const placed = new Map<string, Promise<string[]>>();
      // Chunk buffers whose writes are done, filled again: the upload holds at most
      // UPLOAD_CHUNKS_IN_FLIGHT + 1 of them, and the heap sees no allocation per chunk. They are
      // page-aligned, so the volumes write them to disk directly.
      const spare: Buffer[] = [];
      let fresh: Buffer[] | undefined;
      const nextBuffer = () => {
        fresh ??= pageAlignedBuffers(buffersFor(params.declaredSize, chunkSize), chunkSize);
        return spare.pop() ?? fresh.pop() ?? Buffer.allocUnsafe(chunkSize);
      };
      try {
        for await (const bytes of bodyChunks(source, {
          chunkSize,
          maxBytes: maxUploadSize,
          tooLarge,
          idleMs: uploadIdleTimeoutMs,
          timedOut: () =>
            new RequestTimeoutError(
              `upload sent no bytes for ${uploadIdleTimeoutMs} ms (set by --storage.upload-idle-timeout)`,
            ),
          nextBuffer,
        })) {
          size += bytes.length;
          const chunk: StoredChunk = { id: '', length: bytes.length, volumes: [] };
          stored.push(chunk);
          if (writes.full()) await writes.shift();
          writes.push(
            this.storeChunk(chunk, bytes, params.redundancy, unsyncedDirs, placed).finally(
              () => bytes.length === chunkSize && spare.push(bytes),
            ),
          );
        }
        while (writes.size > 0) await writes.shift();
        // The renames of this upload are durable before the index names them.
        this.dropUnsynced(stored, await syncDirs(unsyncedDirs));
      } finally {
        await writes.settle();
      }
      return await this.commitUpload(uploadId, params, stored, size, startedAt);
    } catch (error) {
      const written = stored.map(({ id }) => id).filter(Boolean);
      // Released first, so the collection takes the bytes this upload wrote.
      releaseHeld();
      await this.failUpload(uploadId, params.localPath, written, error);
      throw error;
    } finally {
      endTransfer();
      releaseHeld();
    }
  }

  /**
   * Hashes one chunk of an upload, holds its id against collection, and writes its replicas
   * (where no good one is recorded, and once per upload: `placed`), filling in `chunk`.
   */
  private async storeChunk(
    chunk: StoredChunk,
    bytes: Buffer,
    redundancy: number,
    unsyncedDirs: UnsyncedDirs,
    placed: Map<string, Promise<string[]>>,
  ): Promise<void> {
    const id = await this.replicas.hashChunk(bytes);
    chunk.id = id;
    this.hold(id);
    // A chunk the upload repeats (a run of zeros) is written once, not once per position.
    let volumes = placed.get(id);
    if (!volumes) {
      volumes = this.chunkLocks.run(id, () =>
        this.replicas.store(id, bytes, redundancy, this.index.chunk(id), unsyncedDirs),
      );
      placed.set(id, volumes);
    }
    chunk.volumes = [...(await volumes)];
  }

  /**
   * Takes out of an upload's chunks the replicas on volumes whose directory sync failed (a
   * volume removed during the upload): they may not survive, so they are not recorded, and are
   * collected as strays should the volume return. A chunk left with no replica fails the upload.
   */
  private dropUnsynced(stored: StoredChunk[], failed: ReadonlyMap<StorageVolume, Error>): void {
    if (failed.size === 0) return;
    const lost = new Set([...failed.keys()].map((volume) => volume.path));
    for (const path of lost) this.strayVolumes.add(path);
    for (const [volume, error] of failed) {
      this.options.logger.warn('upload replicas dropped: volume directory not synced', {
        volume: volume.path,
        error: error.message,
      });
    }
    for (const chunk of stored) {
      chunk.volumes = chunk.volumes.filter((path) => !lost.has(path));
      if (chunk.volumes.length === 0) throw [...failed.values()][0];
    }
  }

  private async commitUpload(
    uploadId: string,
    params: UploadParams,
    stored: StoredChunk[],
    size: number,
    startedAt: number,
  ): Promise<FileDetail> {
    const chunkIds = stored.map(({ id }) => id);
    const id = fileIdOf(chunkIds, size);
    await this.index.change('the uploaded file', (w) => {
      const existing = w.file(id);
      const file: FileRecord = existing
        ? {
            ...existing,
            redundancy: Math.max(existing.redundancy, params.redundancy),
            expires:
              existing.expires === 0 || params.expires === 0
                ? 0
                : Math.max(existing.expires, params.expires),
            autorenew: existing.autorenew || params.autorenew,
          }
        : {
            id,
            localPath: params.localPath,
            size,
            chunkIds,
            redundancy: params.redundancy,
            expires: params.expires,
            autorenew: params.autorenew,
            lease: params.expires === 0 ? 0 : params.expires - startedAt,
          };
      if (existing && file.expires !== existing.expires)
        file.lease = file.expires === 0 ? 0 : file.expires - startedAt;
      w.putFile(file);
      const updates = new Map<string, ChunkRecord>();
      stored.forEach((chunk, position) => {
        const record = updates.get(chunk.id) ??
          w.chunk(chunk.id) ?? { id: chunk.id, length: chunk.length, owners: [], replicas: {} };
        if (!existing) record.owners.push([id, position, file.localPath]);
        for (const volume of chunk.volumes) record.replicas[volume] = 'ok';
        updates.set(chunk.id, record);
      });
      for (const record of updates.values()) w.putChunk(record);
      w.removeUpload(uploadId);
    });
    const detail = this.fileDetail(id);
    this.options.logger.info('file stored', {
      id,
      size,
      chunks: chunkIds.length,
      ul_status: detail.ul_status,
    });
    this.announce(id, detail.ul_status, detail.localPath);
    this.fileStatus.delete(uploadId);
    return detail;
  }

  private async failUpload(
    uploadId: string,
    localPath: string,
    written: readonly string[],
    error: unknown,
  ): Promise<void> {
    await this.index
      .change('the failed upload', (w) => w.removeUpload(uploadId))
      .catch(() => undefined);
    let collected = 0;
    for (const volume of this.replicas.volumes) {
      for (const id of new Set(written)) collected += await this.collectUnlisted(volume, id);
    }
    // A volume that was away keeps what the upload wrote there before it left.
    for (const volume of this.replicas.volumes) {
      if (!volume.present()) this.strayVolumes.add(volume.path);
    }
    this.options.logger.warn('upload failed', {
      upload: uploadId,
      localPath,
      error: String(error),
      collected,
    });
    this.announce(uploadId, 'failed', localPath, (error as Error)?.message ?? String(error));
    this.fileStatus.delete(uploadId);
  }

  // ---- reads ----

  list(cursor: string | undefined, limit: number): Page<FileListItem> {
    const records = this.index.filesAfter(cursor, limit + 1);
    const items = records.slice(0, limit).map((file) => ({
      id: file.id,
      localPath: file.localPath,
      size: file.size,
      redundancy: file.redundancy,
      expires: file.expires,
      autorenew: file.autorenew,
      chunkCount: file.chunkIds.length,
    }));
    return { items, nextCursor: records.length > limit ? items[items.length - 1]?.id : undefined };
  }

  fileDetail(id: string): FileDetail {
    const file = this.fileRecord(id);
    return {
      localPath: file.localPath,
      size: file.size,
      chunkIds: file.chunkIds,
      id: file.id,
      redundancy: file.redundancy,
      expires: file.expires,
      autorenew: file.autorenew,
      ul_status: this.uploadStatusOf(file),
    };
  }

  chunks(cursor: string | undefined, limit: number): Page<ChunkListItem> {
    const records = this.index.chunksAfter(cursor, limit + 1);
    const items = records
      .slice(0, limit)
      .map((record) => ({ id: record.id, ...this.leaseOf(record) }));
    return { items, nextCursor: records.length > limit ? items[items.length - 1]?.id : undefined };
  }

  chunkDetail(id: string): ChunkDetail {
    const record = this.index.chunk(id);
    if (!record) throw new NotFoundError(`chunk ${id} not found`);
    const lease = this.leaseOf(record);
    return {
      belongsToFiles: record.owners,
      ul_status: goodReplicas(record) >= lease.redundancy ? 'uploaded' : 'degraded',
      id: record.id,
      redundancy: lease.redundancy,
      expires: lease.expires,
      autorenew: lease.autorenew,
      dl_status: chunkStatusOf(record.replicas),
      length: record.length,
    };
  }

  /**
   * The file's bytes chunk by chunk, each verified (and its bad replicas repaired) before it is
   * yielded; the next chunks are read meanwhile, at most `CHUNKS_IN_FLIGHT` held at a time.
   */
  async *content(id: string): AsyncGenerator<Buffer> {
    const { chunkIds } = this.fileRecord(id);
    const reads = new OrderedWindow<Buffer>(CHUNKS_IN_FLIGHT);
    let next = 0;
    const endTransfer = beginBulkTransfer();
    this.downloads.set(id, (this.downloads.get(id) ?? 0) + 1);
    const readAhead = () => {
      while (next < chunkIds.length && !reads.full()) {
        reads.push(this.readChunk(chunkIds[next++], id));
      }
    };
    try {
      readAhead();
      while (reads.size > 0) {
        const bytes = await reads.shift();
        readAhead();
        yield bytes;
      }
    } finally {
      endTransfer();
      await reads.settle();
      await this.endDownload(id);
    }
  }

  /** Counts a download of `fileId` as over; the last one of a removed file removes its chunks. */
  private async endDownload(fileId: string): Promise<void> {
    const running = (this.downloads.get(fileId) ?? 1) - 1;
    if (running > 0) {
      this.downloads.set(fileId, running);
      return;
    }
    this.downloads.delete(fileId);
    const retired = this.retiring.get(fileId);
    this.retiring.delete(fileId);
    for (const chunkId of retired?.keys() ?? []) {
      this.release(chunkId);
      await this.removeReplicas(chunkId);
    }
  }

  /** The size of a stored file, for Content-Length. */
  fileSize(id: string): number {
    return this.fileRecord(id).size;
  }

  /**
   * Keeps the chunks of `fileId` that its removal leaves unheld for the downloads of it still
   * running: held, so that no collection takes their replica files, and readable by those
   * downloads; the last one's end removes them. Answers the chunk ids newly kept.
   */
  private retire(fileId: string, records: readonly ChunkRecord[]): string[] {
    const retiring = this.retiring.get(fileId) ?? new Map<string, ChunkRecord>();
    this.retiring.set(fileId, retiring);
    const kept = records.filter((record) => !retiring.has(record.id));
    for (const record of kept) {
      this.hold(record.id);
      retiring.set(record.id, record);
    }
    return kept.map((record) => record.id);
  }

  /** Undoes `retire` for `chunkIds` (the removal did not commit). */
  private unretire(fileId: string, chunkIds: readonly string[]): void {
    for (const chunkId of chunkIds) {
      this.release(chunkId);
      this.retiring.get(fileId)?.delete(chunkId);
    }
  }

  /** One chunk of `fileId`, verified; from the chunks it left if it was removed meanwhile. */
  private async readChunk(id: string, fileId: string): Promise<Buffer> {
    const record = this.index.chunk(id) ?? this.retiring.get(fileId)?.get(id);
    if (!record) throw new ChunkLostError(`chunk ${id} is not in the storage index`);
    const inspection = await this.replicas.inspect(record, false);
    // The read answers from the good bytes even when what it found cannot be recorded (the
    // index's disk full): the next read or the scrubber finds the damage again.
    await this.settle(record, inspection.bad, inspection.good, inspection.bytes).catch(
      (error: unknown) =>
        this.options.logger.warn('chunk replica states not recorded', {
          chunk: id,
          error: String(error),
        }),
    );
    if (!inspection.bytes) {
      throw new ChunkLostError(
        `chunk ${id} has no intact replica (${[...inspection.bad].map(([v, s]) => `${v}: ${s}`).join(', ')})`,
      );
    }
    return inspection.bytes;
  }

  // ---- removal ----

  /** Removes a file and then every chunk no other file holds. */
  async remove(id: string, reason = 'removed'): Promise<void> {
    this.fileRecord(id);
    const unheld: ChunkRecord[] = [];
    let retired: string[] = [];
    let downloading = false;
    let removed = false;
    try {
      await this.index.change('the file removal', (w) => {
        const file = w.file(id);
        if (!file) return;
        removed = true;
        w.removeFile(id);
        for (const chunkId of new Set(file.chunkIds)) {
          const record = w.chunk(chunkId);
          if (!record) continue;
          record.owners = record.owners.filter(([owner]) => owner !== id);
          if (record.owners.length > 0) w.putChunk(record);
          else {
            w.removeChunk(chunkId);
            unheld.push(record);
          }
        }
        // Before the commit: from then on the downloads' reads find them only there.
        downloading = this.downloads.has(id);
        if (downloading) retired = this.retire(id, unheld);
      });
    } catch (error) {
      this.unretire(id, retired);
      throw error;
    }
    // Another removal of the same file committed first: that one answers and announces it.
    if (!removed) throw fileNotFound(id);
    if (!downloading) for (const record of unheld) await this.removeReplicas(record.id);
    this.fileStatus.delete(id);
    this.options.logger.info('file removed', { id, reason, chunksRemoved: unheld.length });
    this.options.publish({
      type: 'file',
      data: { id, ul_status: 'removed', localPath: '', reason },
    });
  }

  /**
   * Renews expired files that have `autorenew` (by whole leases until they lie in the future)
   * and removes the others. Answers how many were removed.
   */
  async collectExpired(): Promise<number> {
    const now = this.now();
    let removed = 0;
    for (const file of this.index.allFiles()) {
      if (file.expires === 0 || file.expires > now) continue;
      if (file.autorenew && file.lease > 0) {
        const leases = Math.floor((now - file.expires) / file.lease) + 1;
        const expires = file.expires + leases * file.lease;
        await this.index.change('the renewed lease', (w) => {
          const current = w.file(file.id);
          if (current) w.putFile({ ...current, expires });
        });
        this.options.logger.info('file lease renewed', { id: file.id, expires });
      } else {
        // A file deleted since the list was read is gone already; the others still expire.
        const gone = await this.remove(file.id, 'expired').then(
          () => true,
          (error: unknown) => {
            if (error instanceof NotFoundError) return false;
            throw error;
          },
        );
        if (gone) removed += 1;
      }
    }
    return removed;
  }

  /**
   * Removes replica files that no index entry names on their volume and that no upload in
   * progress uses: what a crash or a failed upload left behind. Answers how many.
   */
  async collectOrphans(): Promise<number> {
    let collected = 0;
    for (const volume of this.replicas.volumes) collected += await this.collectOrphansOn(volume);
    return collected;
  }

  /**
   * The start's look over every volume, one walk each: a replica the index does not name on
   * its volume is recorded as good when it is an intact replica of a listed chunk, and removed
   * as an orphan otherwise. The index names volumes by path, so a volume reached by another
   * path than before (a data directory moved, restored elsewhere from a backup or reached
   * through a symlink; a disk mounted elsewhere) holds replicas listed under its old path.
   */
  private async adoptOrCollect(): Promise<{ adopted: number; orphans: number }> {
    const counts = { adopted: 0, orphans: 0 };
    for (const volume of this.replicas.volumes) {
      if (!volume.present()) continue;
      for (const id of await volume.chunkIds()) {
        if (await this.adopt(volume, id)) {
          counts.adopted += 1;
          await this.forgetRetired(id);
        } else {
          counts.orphans += await this.collectUnlisted(volume, id);
        }
      }
    }
    return counts;
  }

  private adopt(volume: StorageVolume, id: string): Promise<boolean> {
    return this.chunkLocks.run(id, async () => {
      const record = this.index.chunk(id);
      if (!record || record.replicas[volume.path] !== undefined) return false;
      if (typeof (await this.replicas.check(volume, record)) === 'string') return false;
      await this.setReplicaStates(id, new Map([[volume.path, 'ok']]));
      return true;
    });
  }

  private async collectOrphansOn(volume: StorageVolume): Promise<number> {
    if (!volume.present()) return 0;
    let collected = 0;
    for (const id of await volume.chunkIds()) collected += await this.collectUnlisted(volume, id);
    return collected;
  }

  /**
   * `collectOrphans` on the volumes where a removal may have left replica files behind
   * (`strayVolumes`), each once it is there. Answers how many it removed.
   */
  async collectStrays(): Promise<number> {
    let collected = 0;
    for (const path of [...this.strayVolumes]) {
      const volume = this.replicas.volume(path);
      if (!volume?.present()) continue;
      this.strayVolumes.delete(path);
      collected += await this.collectOrphansOn(volume);
    }
    if (collected > 0) this.options.logger.info('stray chunk replicas collected', { collected });
    return collected;
  }

  /**
   * Removes the replica of `id` on `volume` unless the index lists it there or an upload uses it.
   * At start, `adoptOrCollect` has recorded an intact replica of a listed chunk instead.
   * A replica that cannot be removed (volume read-only or failing) is left for `collectStrays`.
   */
  private collectUnlisted(volume: StorageVolume, id: string): Promise<number> {
    return this.chunkLocks.run(id, async () => {
      if (this.inUse.has(id) || this.index.chunk(id)?.replicas[volume.path] !== undefined) return 0;
      if (!(await volume.holds(id))) return 0;
      return volume.remove(id).then(
        () => 1,
        () => {
          this.strayVolumes.add(volume.path);
          return 0;
        },
      );
    });
  }

  /**
   * Removes every replica file of a chunk the index no longer lists, unless an upload uses it
   * (its commit lists it again), from every volume: a repair may have added one where the
   * record did not say.
   */
  private removeReplicas(id: string): Promise<void> {
    return this.chunkLocks.run(id, async () => {
      if (this.inUse.has(id) || this.index.chunk(id)) return;
      for (const volume of this.replicas.volumes) {
        if (!volume.present()) {
          this.strayVolumes.add(volume.path);
          continue;
        }
        await volume.remove(id).catch(() => this.strayVolumes.add(volume.path));
      }
    });
  }

  // ---- integrity ----

  /** Checks every replica of one chunk, repairs what it can; answers the bad replicas found. */
  async scrub(id: string): Promise<number> {
    const record = this.index.chunk(id);
    if (!record) return 0;
    const inspection = await this.replicas.inspect(record, true);
    await this.settle(record, inspection.bad, inspection.good, inspection.bytes);
    return inspection.bad.size;
  }

  /** The chunk ids after `after` in index order (the scrubber's walk). */
  chunkIdsAfter(after: string | undefined, limit: number): string[] {
    return this.index.chunksAfter(after, limit).map(({ id }) => id);
  }

  /**
   * Records what a read found, then rewrites bad replicas from the good bytes on volumes that
   * are there and adds replicas on other volumes while the chunk has fewer than its files ask.
   */
  private async settle(
    record: ChunkRecord,
    bad: ReadonlyMap<string, 'missing' | 'corrupt'>,
    good: readonly string[],
    bytes: Buffer | undefined,
  ): Promise<void> {
    const changes = new Map<string, ReplicaState>();
    for (const [path, state] of bad) if (record.replicas[path] !== state) changes.set(path, state);
    for (const path of good) if (record.replicas[path] !== 'ok') changes.set(path, 'ok');
    await this.setReplicaStates(record.id, changes);
    if (!bytes) return;
    const repairable = [...bad.keys()].filter((path) => this.repairable(path));
    const unplaced = this.replicas
      .candidates(record.id)
      .map((volume) => volume.path)
      .filter((path) => record.replicas[path] === undefined && this.repairable(path));
    // The files' redundancy only matters when a replica could be added; looking it up decodes
    // every file holding the chunk, chunk list and all, which on every read of a download made
    // its cost grow with the square of the file's size.
    const wanted = unplaced.length === 0 ? 0 : this.leaseOf(record).redundancy;
    const extra = unplaced.slice(0, Math.max(0, wanted - good.length - repairable.length));
    for (const path of [...repairable, ...extra]) await this.repair(record.id, path, bytes);
    // The index is read again only for a chunk with replicas on a volume no longer configured.
    if (Object.keys(record.replicas).some((path) => !this.replicas.volume(path))) {
      await this.forgetRetired(record.id);
    }
  }

  /**
   * Forgets the replicas recorded on volumes no longer configured, once the chunk has as many
   * good replicas on the configured ones as its files ask: a retired disk's replicas would
   * otherwise stay `missing` for good, and the chunk with them. While the chunk is short of
   * replicas they stay recorded, since the volume may be configured again; if it is, after
   * they were forgotten, the start's orphan collection removes their files.
   */
  private async forgetRetired(id: string): Promise<void> {
    const record = this.index.chunk(id);
    if (!record) return;
    const retired = Object.keys(record.replicas).filter((path) => !this.replicas.volume(path));
    if (retired.length === 0) return;
    const good = Object.entries(record.replicas).filter(
      ([path, state]) => state === 'ok' && this.replicas.volume(path),
    ).length;
    if (good < this.leaseOf(record).redundancy) return;
    await this.index.change('the replicas on retired volumes', (w) => {
      const current = w.chunk(id);
      if (!current) return;
      for (const path of retired) delete current.replicas[path];
      w.putChunk(current);
    });
    this.options.logger.info('chunk replicas on unconfigured volumes forgotten', {
      chunk: id,
      volumes: retired,
    });
  }

  /** Whether a repair may write to the volume at `path`: it is there and did not just refuse one. */
  private repairable(path: string): boolean {
    if (!this.replicas.volume(path)?.present()) return false;
    return Date.now() >= (this.repairPausedUntil.get(path) ?? 0);
  }

  private repair(id: string, path: string, bytes: Buffer): Promise<void> {
    const volume = this.replicas.volume(path);
    if (!volume) return Promise.resolve();
    return this.chunkLocks.run(id, async () => {
      // Removed meanwhile (its last file deleted): a rewrite would only leave an orphan.
      if (!this.index.chunk(id)) return;
      await this.setReplicaStates(id, new Map([[path, 'repairing']]));
      try {
        await volume.write(id, bytes);
        await this.setReplicaStates(id, new Map([[path, 'ok']]));
        this.options.logger.info('chunk replica repaired', { chunk: id, volume: path });
      } catch (error) {
        this.repairPausedUntil.set(path, Date.now() + REPAIR_PAUSE_MS);
        await this.setReplicaStates(id, new Map([[path, 'missing']]));
        this.options.logger.warn('chunk replica repair failed', {
          chunk: id,
          volume: path,
          error: String(error),
          retryInSeconds: REPAIR_PAUSE_MS / 1000,
        });
      }
    });
  }

  private async setReplicaStates(
    id: string,
    changes: ReadonlyMap<string, ReplicaState>,
  ): Promise<void> {
    if (changes.size === 0) return;
    let updated: ChunkRecord | undefined;
    await this.index.change('the chunk replica state', (w) => {
      const record = w.chunk(id);
      if (!record) return;
      for (const [path, state] of changes) record.replicas[path] = state;
      w.putChunk(record);
      updated = record;
    });
    if (!updated) return;
    const record: ChunkRecord = updated;
    const dlStatus = chunkStatusOf(record.replicas);
    for (const [volume, replica] of changes) {
      if (replica === 'missing' || replica === 'corrupt') {
        this.options.logger.warn('chunk replica bad', { chunk: id, volume, replica });
      }
      this.options.publish({ type: 'chunk', data: { id, dl_status: dlStatus, volume, replica } });
    }
    for (const fileId of new Set(record.owners.map(([owner]) => owner))) {
      const file = this.index.file(fileId);
      if (file) this.announce(file.id, this.uploadStatusOf(file), file.localPath);
    }
  }

  // ---- helpers ----

  private fileRecord(id: string): FileRecord {
    const file = this.index.file(id);
    if (!file) throw fileNotFound(id);
    return file;
  }

  private uploadStatusOf(file: FileRecord): UploadStatus {
    for (const id of new Set(file.chunkIds)) {
      const record = this.index.chunk(id);
      if (!record || goodReplicas(record) < file.redundancy) return 'degraded';
    }
    return 'uploaded';
  }

  /** A chunk's redundancy, expiry and renewal: the most any file holding it asks for. */
  private leaseOf(
    record: ChunkRecord,
  ): Pick<ChunkListItem, 'redundancy' | 'expires' | 'autorenew'> {
    const files = [...new Set(record.owners.map(([owner]) => owner))]
      .map((id) => this.index.file(id))
      .filter((file): file is FileRecord => file !== undefined);
    return {
      redundancy: Math.max(1, ...files.map((file) => file.redundancy)),
      expires: files.some((file) => file.expires === 0)
        ? 0
        : Math.max(0, ...files.map((file) => file.expires)),
      autorenew: files.some((file) => file.autorenew),
    };
  }

  /** Publishes a file status when it changed since the last one published for that id. */
  private announce(id: string, status: UploadStatus, localPath: string, reason?: string): void {
    if (this.fileStatus.get(id) === status) return;
    this.fileStatus.set(id, status);
    this.options.publish({
      type: 'file',
      data: { id, ul_status: status, localPath, ...(reason ? { reason } : {}) },
    });
  }

  private hold(id: string): void {
    this.inUse.set(id, (this.inUse.get(id) ?? 0) + 1);
  }

  private release(id: string): void {
    const count = (this.inUse.get(id) ?? 0) - 1;
    if (count <= 0) this.inUse.delete(id);
    else this.inUse.set(id, count);
  }

  private async recover(): Promise<void> {
    const interrupted = this.index.uploadsInProgress();
    if (interrupted.length > 0) {
      await this.index.change('the interrupted uploads', (w) => {
        for (const upload of interrupted) w.removeUpload(upload.id);
      });
    }
    for (const upload of interrupted) {
      this.options.logger.warn('upload interrupted by a stop: marked failed', {
        upload: upload.id,
        localPath: upload.localPath,
      });
      this.announce(upload.id, 'failed', upload.localPath, 'interrupted by a stop of the node');
      this.fileStatus.delete(upload.id);
    }
    let temp = 0;
    for (const volume of this.replicas.volumes)
      if (volume.present()) temp += await volume.clearTemp();
    const { adopted, orphans } = await this.adoptOrCollect();
    // A replica still `repairing` was being rewritten when the node stopped: check it again.
    const repairs = this.index.chunkIdsRepairing();
    for (const id of repairs) await this.scrub(id);
    if (interrupted.length + temp + adopted + orphans + repairs.length > 0) {
      this.options.logger.info('storage recovered', {
        failedUploads: interrupted.length,
        tempFiles: temp,
        adoptedReplicas: adopted,
        orphanChunks: orphans,
        interruptedRepairs: repairs.length,
      });
    }
  }

  close(): Promise<void> {
    return this.index.close();
  }
}
