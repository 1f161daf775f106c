/**
 * The background daemon's log file, rotated by size: when a line would take the file past
 * `maxSize`, `daemon.log` becomes `daemon.log.1` (`.1` becomes `.2`, and so on) and the oldest
 * beyond `maxFiles` files in all is deleted. A line longer than `maxSize` gets a file of its own.
 *
 * Writes are synchronous and never throw: a failed write (disk full) loses that line only, and
 * the next one is tried again; a stream would emit an unhandled 'error' and end the process,
 * then stay closed after space returns.
 */
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface LogRotation {
  /** Largest size of one file in bytes. */
  maxSize: number;
  /** Files kept in all, the one being written included (1: the file starts over instead). */
  maxFiles: number;
}

/** `daemon.log`, then `daemon.log.1` (the newest rotated) to `daemon.log.<maxFiles - 1>`. */
export function rotatedLogFile(path: string, index: number): string {
  return index === 0 ? path : `${path}.${index}`;
}

export class RotatingLogFile {
  private fd: number | undefined;
  private size = 0;

  constructor(
    private readonly path: string,
    private readonly rotation: LogRotation,
  ) {
    // A fresh data directory has no logs/ yet when the first line (`starting`) is written. If it
    // cannot be made, the node's start reports why (`node.ts`); the lines meanwhile are lost.
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch {
      // Told by the start, as above.
    }
    this.open('a');
  }

  write(line: string): void {
    const bytes = Buffer.from(line);
    if (this.size > 0 && this.size + bytes.length > this.rotation.maxSize) this.rotate();
    if (this.fd === undefined) this.open('a');
    if (this.fd === undefined) return;
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    } catch {
      // Nowhere to report it; the next line is tried again.
    }
    this.size += written;
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private open(flags: 'a' | 'w'): void {
    try {
      this.fd = openSync(this.path, flags, 0o600);
      this.size = fstatSync(this.fd).size;
    } catch {
      this.fd = undefined;
    }
  }

  private rotate(): void {
    this.close();
    const { maxFiles } = this.rotation;
    if (maxFiles <= 1) {
      this.open('w');
      return;
    }
    try {
      rmSync(rotatedLogFile(this.path, maxFiles - 1), { force: true });
      for (let index = maxFiles - 2; index >= 0; index--) {
        renameIfPresent(rotatedLogFile(this.path, index), rotatedLogFile(this.path, index + 1));
      }
    } catch {
      // A rename the file system refused: writing goes on in whatever file is at the path.
    }
    this.open('a');
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
