/**
 * Heap snapshots of the daemon's main isolate, in the `.heapsnapshot` format Chrome DevTools'
 * Memory panel opens. V8 stops the isolate while it walks the heap, so a snapshot holds up the
 * event loop for as long as it takes (about a second per few hundred MB of heap); V8 writes it
 * straight to the file, without building the JSON text in JavaScript, which keeps that pause and
 * the memory it needs as small as they can be.
 */
import { writeHeapSnapshot } from 'node:v8';
import type { ProfileDirectory } from './profile-directory.js';

export function writeHeapSnapshotTo(directory: ProfileDirectory, path: string): Promise<void> {
  return directory.writeThrough(path, async (file) => {
    writeHeapSnapshot(file.temporary);
  });
}
