/**
 * `writeFileAtomic`: the content replaces the file whole, and a temporary file a killed writer
 * left behind (for a key file, a copy of the key) goes at the next write of the same file.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../src/shared/atomic-write.js';

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('writeFileAtomic', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'atomic-write-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces the content and leaves no temporary file, with the mode asked for', () => {
    const target = join(dir, 'node_key.json');
    writeFileSync(target, 'old');
    writeFileAtomic(target, 'new', 0o600);
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['node_key.json']);
  });

  it("removes what a killed writer left of the same file, and nothing of a live writer's or another file's", () => {
    const target = join(dir, 'node_key.json');
    const leftover = `node_key.json.${deadPid()}.0123456789ab.tmp`;
    const live = `node_key.json.${process.pid}.ba9876543210.tmp`;
    const other = `auth.token.${deadPid()}.0123456789ab.tmp`;
    for (const name of [leftover, live, other]) writeFileSync(join(dir, name), 'secret');
    writeFileAtomic(target, 'new');
    expect(readdirSync(dir).sort()).toEqual([other, 'node_key.json', live].sort());
  });

  it('leaves no temporary file when the write fails', () => {
    // A directory at the target: the rename over it fails.
    mkdirSync(join(dir, 'taken'));
    expect(() => writeFileAtomic(join(dir, 'taken'), 'new')).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
  });
});
