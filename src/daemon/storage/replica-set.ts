/**
 * Where a chunk's replicas go and how they are read back. Placement starts at a volume chosen
 * by the chunk id (so chunks spread over volumes) and takes distinct volumes; volumes that
 * already hold a good replica come first, so a chunk is stored at most once per volume. Reads
 * hash every replica they touch and report the ones found missing or corrupt.
 */
import type { ReplicaState } from '../../shared/storage-api.js';
import { VolumeUnavailableError } from '../../shared/errors.js';
import { chunkIdOfAsync } from './content-address.js';
import type { ChunkRecord } from './storage-index.js';
import type { ReplicaRead, StorageVolume, UnsyncedDirs } from './volume.js';

/** What a read found on each volume it looked at. */
export interface ReplicaInspection {
  /** Verified bytes, when some replica had them. */
  bytes?: Buffer;
  /** Volumes whose replica is missing or corrupt. */
  bad: Map<string, Extract<ReplicaState, 'missing' | 'corrupt'>>;
  /** Volumes whose replica was verified. */
  good: string[];
}

export class ReplicaSet {
  private readonly byPath: Map<string, StorageVolume>;

  /** `hashChunk`: the hex SHA-256 of a chunk's bytes, off the event loop. */
  constructor(
    readonly volumes: readonly StorageVolume[],
    readonly hashChunk: (bytes: Uint8Array) => Promise<string> = chunkIdOfAsync,
  ) {
    this.byPath = new Map(volumes.map((volume) => [volume.path, volume]));
  }

  volume(path: string): StorageVolume | undefined {
    return this.byPath.get(path);
  }

  /** Present volumes in placement order for `id`, those in `first` ahead of the rest. */
  candidates(id: string, first: readonly string[] = []): StorageVolume[] {
    const start = Number.parseInt(id.slice(0, 8), 16) % this.volumes.length;
    const rotated = [...this.volumes.slice(start), ...this.volumes.slice(0, start)];
    const preferred = rotated.filter((volume) => first.includes(volume.path));
    const others = rotated.filter((volume) => !first.includes(volume.path));
    return [...preferred, ...others].filter((volume) => volume.present());
  }

  /**
   * Puts replicas of a chunk on up to `redundancy` distinct volumes, writing only where no good
   * replica is recorded, and answers the volumes that now hold one. `unsyncedDirs` as for
   * `StorageVolume.write`.
   *
   * @throws VolumeUnavailableError when no volume could take it (the first reason is named).
   */
  async store(
    id: string,
    bytes: Uint8Array,
    redundancy: number,
    existing: ChunkRecord | undefined,
    unsyncedDirs?: UnsyncedDirs,
  ): Promise<string[]> {
    const held = Object.entries(existing?.replicas ?? {})
      .filter(([, state]) => state === 'ok')
      .map(([path]) => path);
    const queue = this.candidates(id, held);
    const placed: string[] = [];
    const failures: Error[] = [];
    while (placed.length < redundancy && queue.length > 0) {
      const batch = queue.splice(0, redundancy - placed.length);
      const results = await Promise.allSettled(
        batch.map(async (volume) => {
          if (!held.includes(volume.path)) await volume.write(id, bytes, unsyncedDirs);
          return volume.path;
        }),
      );
      for (const result of results) {
        if (result.status === 'fulfilled') placed.push(result.value);
        else failures.push(result.reason as Error);
      }
    }
    if (placed.length === 0) {
      throw failures[0] ?? new VolumeUnavailableError('no storage volume is available');
    }
    return placed;
  }

  /**
   * Reads the chunk from its recorded replicas (good ones first, then in volume order),
   * verifying each by its hash.
   * With `all` every replica is checked (the scrubber); otherwise reading stops at the first
   * good one.
   */
  async inspect(record: ChunkRecord, all: boolean): Promise<ReplicaInspection> {
    // Good replicas first, then in the configured order of the volumes.
    const rank = (path: string, state: string) =>
      (state === 'ok' ? 0 : this.volumes.length) +
      this.volumes.findIndex((volume) => volume.path === path);
    const order = Object.entries(record.replicas)
      .sort(([a, stateA], [b, stateB]) => rank(a, stateA) - rank(b, stateB))
      .map(([path]) => path);
    const inspection: ReplicaInspection = { bad: new Map(), good: [] };
    for (const path of order) {
      const replica = await this.check(this.volume(path), record);
      if (typeof replica === 'string') inspection.bad.set(path, replica);
      else {
        inspection.good.push(path);
        inspection.bytes ??= replica.bytes;
        if (!all) break;
      }
    }
    return inspection;
  }

  /** The replica of `record` on `volume`, read and verified; or what is wrong with it. */
  async check(
    volume: StorageVolume | undefined,
    record: ChunkRecord,
  ): Promise<ReplicaRead | 'missing' | 'corrupt'> {
    // One byte past the length is enough to tell a longer replica.
    const replica = await volume?.read(record.id, record.length + 1).catch(() => undefined);
    if (replica === undefined) return 'missing';
    return (await this.verified(replica, record)) ? replica : 'corrupt';
  }

  /** Whether the replica has the chunk's length and hash. */
  private async verified(replica: ReplicaRead, record: ChunkRecord): Promise<boolean> {
    if (replica.bytes.length !== record.length) return false;
    return (replica.sha256Hex ?? (await this.hashChunk(replica.bytes))) === record.id;
  }
}
