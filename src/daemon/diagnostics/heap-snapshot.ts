/**
 * Heap snapshots of the daemon's main isolate, in the `.heapsnapshot` format Chrome DevTools'
 * Memory panel opens. V8 stops the isolate while it walks the heap, so a snapshot holds up the
 * event loop for as long as it takes (docs/debug.md has measurements); V8 writes it straight to
 * the file, without building the JSON text in JavaScript, which keeps that pause and the memory
 * it needs as small as they can be.
 */
import { Session } from 'node:inspector/promises';
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

/**
 * After a snapshot V8 keeps an id for every object it saw, and moves the entry whenever a
 * collection moves the object, so that a later snapshot could be matched against it: about 55
 * bytes per object (113 MiB for a heap of two million objects) for the rest of the process's
 * life, and more work in every collection. Nothing here compares snapshots, so the table goes
 * once the file is written: the inspector's `HeapProfiler.disable` clears it.
 */
async function forgetObjectIds(): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.disable');
  } finally {
    session.disconnect();
  }
}

export async function writeHeapSnapshotTo(
  directory: ProfileDirectory,
  path: string,
): Promise<void> {
  try {
    await directory.writeThrough(path, async (file) => {
      buildLineTables();
      writeHeapSnapshot(file.temporary);
    });
  } finally {
    await forgetObjectIds();
  }
}
