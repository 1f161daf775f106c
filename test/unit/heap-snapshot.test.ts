/**
 * A heap snapshot leaves nothing behind in the process: V8's table of object ids, which it keeps
 * after a snapshot for the life of the process unless told otherwise, is dropped once the file
 * is written. Seen through resident memory after `malloc_trim` (the os-memory addon), with a
 * heap of a million objects, where the table alone is about 55 MiB.
 */
import { afterAll, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileDirectory } from '../../src/daemon/diagnostics/profile-directory.js';
import { writeHeapSnapshotTo } from '../../src/daemon/diagnostics/heap-snapshot.js';
import { loadOsMemory, OS_MEMORY_ADDON } from '../../src/daemon/os-memory.js';

const root = mkdtempSync(join(tmpdir(), 'node-cli-heap-snapshot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const trimMalloc = existsSync(OS_MEMORY_ADDON) ? loadOsMemory(true)?.trimMalloc : undefined;
const MiB = 2 ** 20;
/**
 * Objects on the heap: enough that the table V8 would keep for them (about 55 bytes each) stands
 * well clear of what resident memory moves by anyway on a loaded machine (up to some 45 MiB seen).
 */
const OBJECTS = 3_000_000;
/** The table V8 would keep for them, in MiB. */
const ID_TABLE_MIB = (OBJECTS * 55) / MiB;

/** Resident memory once glibc has handed back what it holds free. */
function residentMiB(): number {
  trimMalloc?.();
  return process.memoryUsage().rss / MiB;
}

(trimMalloc ? it : it.skip)(
  'writes the snapshot and keeps no memory for it afterwards',
  async () => {
    const objects = Array.from({ length: OBJECTS }, (_, index) => ({ index }));
    const before = residentMiB();
    const path = join(root, 'many.heapsnapshot');
    await writeHeapSnapshotTo(new ProfileDirectory(root), path);
    expect(statSync(path).size).toBeGreaterThan(25 * MiB);
    rmSync(path);
    // Kept, the table alone would be all of ID_TABLE_MIB (about 157 MiB).
    expect(residentMiB() - before).toBeLessThan(ID_TABLE_MIB / 2);
    expect(objects).toHaveLength(OBJECTS);
  },
  120_000,
);
