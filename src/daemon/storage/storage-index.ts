/**
 * The storage layer's metadata, in its own LMDB environment (`<datadir>/storage-index`):
 * files, chunks (who holds them, where their replicas are and in what state) and uploads in
 * progress. Every change is one transaction through `commitLmdb`, after the bytes it describes
 * are durable on their volumes, so the index never names bytes that are not on disk.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { ChunkOwner, ReplicaState, UploadStatus } from '../../shared/storage-api.js';
import { DamagedStoreError, VolumeUnavailableError } from '../../shared/errors.js';
import {
  commitLmdb,
  LMDB_FILE_EMPTY,
  LMDB_FILE_MISSING,
  lmdbFileProblem,
  readTreeEdges,
  unreadable,
} from '../chain/lmdb-file.js';

/** Room for millions of chunk records; LMDB grows the file only as it fills. */
const INDEX_MAP_SIZE = 4 * 1024 * 1024 * 1024;

export interface FileRecord {
  id: string;
  localPath: string;
  size: number;
  chunkIds: string[];
  redundancy: number;
  expires: number;
  autorenew: boolean;
  /** Seconds from upload to `expires`: what `autorenew` extends by; 0 when it never expires. */
  lease: number;
}

export interface ChunkRecord {
  id: string;
  length: number;
  owners: ChunkOwner[];
  /** State of the replica on each volume (by the volume's path) that should hold one. */
  replicas: Record<string, ReplicaState>;
}

/** An upload in progress; found at start only when the node stopped during it. */
export interface UploadRecord {
  id: string;
  localPath: string;
  status: Extract<UploadStatus, 'queued' | 'uploading'>;
  startedAt: number;
}

/** What a transaction may do: read and write all three tables. */
export interface IndexWriter {
  file(id: string): FileRecord | undefined;
  chunk(id: string): ChunkRecord | undefined;
  putFile(record: FileRecord): void;
  removeFile(id: string): void;
  putChunk(record: ChunkRecord): void;
  removeChunk(id: string): void;
  putUpload(record: UploadRecord): void;
  removeUpload(id: string): void;
}

export class StorageIndex implements Pick<IndexWriter, 'file' | 'chunk'> {
  private constructor(
    private readonly path: string,
    private readonly root: RootDatabase,
    private readonly files: Database<FileRecord, string>,
    private readonly chunks: Database<ChunkRecord, string>,
    private readonly uploads: Database<UploadRecord, string>,
  ) {}

  /**
   * Opens (creating if needed) the index in `path`. A damaged or truncated file is refused with
   * `DamagedStoreError` before lmdb maps it (lmdb would die of SIGBUS on a page past the end):
   * the index is the only record of which files the layer holds. So is one whose trees cannot
   * be read along their edges (first and last record, root to leaf): damage inside the file that
   * its header does not show, which would otherwise stop the start with LMDB's bare error.
   */
  static async open(path: string): Promise<StorageIndex> {
    const dataFile = join(path, 'data.mdb');
    const refusal = (problem: string) =>
      new DamagedStoreError(
        `storage index ${dataFile} ${problem}. Restore the data directory from a backup, or ` +
          `move ${path} and the chunks/ directory of every storage volume away to start with an ` +
          `empty storage layer (the files stored before are then no longer served)`,
      );
    const problem = lmdbFileProblem(dataFile);
    if (problem !== undefined && StorageIndex.exists(path)) throw refusal(problem);
    mkdirSync(path, { recursive: true });
    const root = open({ path, maxDbs: 3, compression: false, mapSize: INDEX_MAP_SIZE });
    const trees = [
      root.openDB<FileRecord, string>('files', { keyEncoding: 'ordered-binary' }),
      root.openDB<ChunkRecord, string>('chunks', { keyEncoding: 'ordered-binary' }),
      root.openDB<UploadRecord, string>('uploads', { keyEncoding: 'ordered-binary' }),
    ] as const;
    try {
      for (const tree of trees) readTreeEdges(tree);
    } catch (error) {
      await root.close().catch(() => undefined);
      throw refusal(unreadable(error));
    }
    return new StorageIndex(path, root, ...trees);
  }

  /** Whether there is an index in `path` to open; opening one that is not makes a new, empty one. */
  static exists(path: string): boolean {
    const problem = lmdbFileProblem(join(path, 'data.mdb'));
    return problem !== LMDB_FILE_MISSING && problem !== LMDB_FILE_EMPTY;
  }

  file(id: string): FileRecord | undefined {
    return this.files.get(id);
  }

  chunk(id: string): ChunkRecord | undefined {
    return this.chunks.get(id);
  }

  fileCount(): number {
    return this.files.getCount();
  }

  /** Up to `limit` files with ids after `after`, in id order. */
  filesAfter(after: string | undefined, limit: number): FileRecord[] {
    return this.page(this.files, after, limit);
  }

  chunksAfter(after: string | undefined, limit: number): ChunkRecord[] {
    return this.page(this.chunks, after, limit);
  }

  allFiles(): FileRecord[] {
    return [...this.files.getRange({}).map(({ value }) => value)];
  }

  /** Ids of the chunks with a replica in the `repairing` state. */
  chunkIdsRepairing(): string[] {
    return [
      ...this.chunks
        .getRange({})
        .filter(({ value }) => Object.values(value.replicas).includes('repairing'))
        .map(({ key }) => key),
    ];
  }

  uploadsInProgress(): UploadRecord[] {
    return [...this.uploads.getRange({}).map(({ value }) => value)];
  }

  /**
   * Runs `write` as one committed transaction; rejects with `VolumeUnavailableError` (507) when
   * the index's disk is full or read-only, else with `StorageError` when it fails.
   */
  async change(what: string, write: (writer: IndexWriter) => void): Promise<void> {
    const writer: IndexWriter = {
      file: (id) => this.files.get(id),
      chunk: (id) => this.chunks.get(id),
      putFile: (record) => void this.files.putSync(record.id, record),
      removeFile: (id) => void this.files.removeSync(id),
      putChunk: (record) => void this.chunks.putSync(record.id, record),
      removeChunk: (id) => void this.chunks.removeSync(id),
      putUpload: (record) => void this.uploads.putSync(record.id, record),
      removeUpload: (id) => void this.uploads.removeSync(id),
    };
    try {
      await commitLmdb(this.root, what, () => write(writer));
      // Committed survives the process; flushed survives the machine.
      await this.root.flushed;
    } catch (error) {
      throw this.unwritable(error, what) ?? error;
    }
  }

  /** A failure of the index's disk told as the 507 of a storage volume; undefined for others. */
  private unwritable(error: unknown, what: string): VolumeUnavailableError | undefined {
    const text = `${String(error)} ${String((error as Error)?.cause ?? '')}`;
    const reason = /No space left|ENOSPC|Disk quota/i.test(text)
      ? 'is full (ENOSPC)'
      : /Read-only file system|EROFS/i.test(text)
        ? 'is read-only (EROFS)'
        : undefined;
    if (!reason) return undefined;
    return new VolumeUnavailableError(
      `the storage index ${this.path} ${reason}: ${what} not written`,
      {
        cause: error,
      },
    );
  }

  close(): Promise<void> {
    return this.root.close();
  }

  private page<T>(db: Database<T, string>, after: string | undefined, limit: number): T[] {
    const items: T[] = [];
    for (const { key, value } of db.getRange(after === undefined ? {} : { start: after })) {
      if (key === after) continue;
      items.push(value);
      if (items.length >= limit) break;
    }
    return items;
  }
}
