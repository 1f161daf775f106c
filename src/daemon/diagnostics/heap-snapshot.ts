/**
 * Heap snapshots of the daemon's main isolate, in the `.heapsnapshot` format Chrome DevTools'
 * Memory panel opens. V8 stops the isolate while it walks the heap, so a snapshot holds up the
 * event loop for as long as it takes (docs/debug.md has measurements); V8 writes it straight to
 * the file, without building the JSON text in JavaScript, which keeps that pause and the memory
 * it needs as small as they can be.
 */
import { writeHeapSnapshot } from 'node:v8';
import type { ProfileDirectory } from './profile-directory.js';

/**
 * The snapshot gives every function's line and column. V8 11 (Node 20) takes them from its
 * script's table of line starts, and for a script without one it scans the source from the
 * top for each function instead: over the daemon's one-file bundle that made a 22 MB snapshot
 * take 26 s rather than 3.5 s (on a loaded machine). Formatting a stack trace builds the table
 * of every script on the stack, this bundle among them, in a few milliseconds.
 */
function buildLineTables(): void {
  void new Error('heap snapshot').stack;
}

export function writeHeapSnapshotTo(directory: ProfileDirectory, path: string): Promise<void> {
  return directory.writeThrough(path, async (file) => {
    buildLineTables();
    writeHeapSnapshot(file.temporary);
  });
}
