import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** `<target>.<writer pid>.<random>.tmp`: the writer's pid tells a crashed writer's leftover. */
const TEMP_NAME = /^(.+)\.(\d+)\.[0-9a-f]{12}\.tmp$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary siblings of `path` whose writer is gone: a process killed between
 * making one and renaming it left it behind, and for a key file it holds the key.
 */
function removeLeftovers(path: string): void {
  const dir = dirname(path);
  const target = basename(path);
  for (const name of readdirSync(dir)) {
    const match = TEMP_NAME.exec(name);
    if (match?.[1] === target && !processAlive(Number(match[2]))) {
      rmSync(join(dir, name), { force: true });
    }
  }
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a file so that readers see either the old or the new content, never a torn one, and
 * so that the new content survives a power loss once this returns: write a temporary sibling,
 * fsync it, rename it over the target, fsync the directory (the rename lives in it).
 */
export function writeFileAtomic(path: string, content: string | Uint8Array, mode = 0o644): void {
  removeLeftovers(path);
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temp, 'w', mode);
    try {
      writeSync(fd, typeof content === 'string' ? Buffer.from(content) : content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  fsyncPath(dirname(path));
}
