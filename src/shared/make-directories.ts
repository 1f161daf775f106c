/**
 * `mkdir -p`, one directory at a time. Node's recursive mkdir retries without end where making
 * a directory fails with ENOENT under a parent that exists (/proc, /sys refuse new entries that
 * way), so a data directory there hung the command; here each step makes the directory, finds
 * one, or throws the file system's error.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirectories(path: string): void {
  const target = resolve(path);
  const parent = dirname(target);
  if (parent !== target && !existsSync(parent)) makeDirectories(parent);
  try {
    mkdirSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(target).isDirectory()) {
      throw error;
    }
  }
}
