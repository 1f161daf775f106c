/**
 * Reads the tail of the daemon's log and follows what is appended to it, like `tail -n N -F`:
 * the log is rotated by size (`daemon.log` becomes `daemon.log.1`, `.1` becomes `.2`, ...), so
 * the follower keeps the file it was reading open, finishes it when it has been renamed, reads
 * any file rotated in between whole, and goes on with the new `daemon.log`.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync, watch } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** The name of the `index`-th rotated file (0: the file being written). */
function rotated(path: string, index: number): string {
  return index === 0 ? path : `${path}.${index}`;
}

/** Bytes read from the end of a file at a time when looking for its last lines. */
const TAIL_CHUNK = 64 * 1024;

/** The last `count` lines of a file (fewer if it has fewer), read from its end. */
function lastLinesOf(path: string, count: number): string[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    let start = fstatSync(fd).size;
    let tail = Buffer.alloc(0);
    // One line more than asked: the first one found may be cut by the chunk boundary.
    while (start > 0 && countNewlines(tail) <= count) {
      const length = Math.min(TAIL_CHUNK, start);
      start -= length;
      const chunk = Buffer.alloc(length);
      readSync(fd, chunk, 0, length, start);
      tail = Buffer.concat([chunk, tail]);
    }
    const lines = tail.toString('utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.slice(start > 0 ? 1 : 0).slice(-count);
  } finally {
    closeSync(fd);
  }
}

function countNewlines(bytes: Buffer): number {
  let newlines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) newlines++;
  return newlines;
}

/** The last `count` lines, reaching back into the rotated files when the newest is short. */
export function tailLines(path: string, count: number): string[] {
  let lines: string[] = [];
  for (let index = 0; lines.length < count; index++) {
    if (index > 0 && !existsSync(rotated(path, index))) break;
    lines = [...lastLinesOf(rotated(path, index), count - lines.length), ...lines];
  }
  return lines;
}

function statOf(path: string): { ino: number; size: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function inodeOf(path: string): number | undefined {
  return statOf(path)?.ino;
}

/** How far back a follower looks for the file it was reading after rotations. */
const MAX_ROTATIONS_BEHIND = 16;
/** A stat of the log this often besides change events, which a busy file system may drop. */
const CHECK_INTERVAL_MS = 500;

/**
 * Calls `onLine` with every whole line appended after the current end of the log, across
 * rotations, until the returned function is called.
 */
export function followLines(path: string, onLine: (line: string) => void): () => void {
  let fd = openSync(path, 'r');
  let inode = fstatSync(fd).ino;
  let offset = fstatSync(fd).size;
  let decoder = new StringDecoder('utf8');
  let partial = '';
  const buffer = Buffer.alloc(64 * 1024);

  const emit = (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
  const drain = () => {
    for (let read; (read = readSync(fd, buffer, 0, buffer.length, offset)) > 0;) {
      offset += read;
      emit(decoder.write(buffer.subarray(0, read)));
    }
  };
  /**
   * The files written after the one being read, oldest first, opened; undefined when the log
   * rotated again while they were being opened (the names then no longer say which file is
   * which, so the caller looks again).
   */
  const openNewer = (): Array<{ fd: number; ino: number }> | undefined => {
    let behind = 1;
    while (behind < MAX_ROTATIONS_BEHIND && inodeOf(rotated(path, behind)) !== inode) behind++;
    // Not found: the follower fell behind the whole retention, and goes on with the newest file.
    const found = behind < MAX_ROTATIONS_BEHIND;
    if (!found) behind = 1;
    const opened: Array<{ fd: number; ino: number }> = [];
    const still = () =>
      (!found || inodeOf(rotated(path, behind)) === inode) &&
      opened.every(({ ino }, k) => inodeOf(rotated(path, behind - 1 - k)) === ino);
    try {
      for (let index = behind - 1; index >= 0; index--) {
        const fd = openSync(rotated(path, index), 'r');
        opened.push({ fd, ino: fstatSync(fd).ino });
      }
      if (still()) return opened;
    } catch {
      // A name missing mid-rotation: looked at again below.
    }
    for (const { fd: other } of opened) closeSync(other);
    return undefined;
  };
  const check = () => {
    drain();
    const current = statOf(path);
    if (current === undefined) return;
    if (current.ino === inode) {
      if (current.size < offset) offset = 0;
      drain();
      return;
    }
    // Rotated: first the lines the writer appended to this file between the drain above and its
    // rename (it writes nothing there after), then the files newer than it, oldest first, then
    // the new log.
    drain();
    const newer = openNewer();
    if (newer === undefined) return;
    for (const next of newer) {
      closeSync(fd);
      fd = next.fd;
      inode = next.ino;
      offset = 0;
      decoder = new StringDecoder('utf8');
      drain();
    }
  };
  const watcher = watch(dirname(path), () => check());
  const timer = setInterval(check, CHECK_INTERVAL_MS);
  return () => {
    watcher.close();
    clearInterval(timer);
    closeSync(fd);
  };
}
