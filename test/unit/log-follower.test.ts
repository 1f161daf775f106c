/**
 * `daemon logs` reading the rotated log: the tail reaches back into rotated files, and a
 * follower goes on across rotations, reading whole the files rotated while it was not looking.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { followLines, tailLines } from '../../src/client/log-follower.js';
import { RotatingLogFile } from '../../src/daemon/log/rotating-log-file.js';
import { waitFor } from '../helpers/processes.js';

const line = (i: number) => `line ${String(i).padStart(5, '0')} ${'x'.repeat(34)}`;
const range = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => line(from + i));

describe('log follower', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('tails across rotated files, oldest first', () => {
    dir = mkdtempSync(join(tmpdir(), 'node-cli-follow-'));
    const path = join(dir, 'daemon.log');
    const file = new RotatingLogFile(path, { maxSize: 1000, maxFiles: 4 });
    for (let i = 0; i < 100; i++) file.write(`${line(i)}\n`);
    file.close();
    // 21 lines of 46 bytes a file: daemon.log holds 84-99, .1 63-83, .2 42-62, .3 21-41.
    expect(tailLines(path, 5)).toEqual(range(95, 100));
    expect(tailLines(path, 30)).toEqual(range(70, 100));
    expect(tailLines(path, 1000)).toEqual(range(21, 100));
    expect(tailLines(path, 0)).toEqual([]);
  });

  it('follows across rotations without losing or repeating a line', async () => {
    dir = mkdtempSync(join(tmpdir(), 'node-cli-follow-'));
    const path = join(dir, 'daemon.log');
    const file = new RotatingLogFile(path, { maxSize: 1000, maxFiles: 20 });
    file.write(`${line(0)}\n`);
    const seen: string[] = [];
    const stop = followLines(path, (text) => seen.push(text));
    try {
      // Several rotations at once, then one at a time.
      for (let i = 1; i < 150; i++) file.write(`${line(i)}\n`);
      await waitFor(() => seen.length >= 149, 10_000, 'the burst');
      for (let i = 150; i < 200; i++) {
        file.write(`${line(i)}\n`);
        await waitFor(() => seen.length >= i, 10_000, `line ${i}`);
      }
      expect(seen).toEqual(range(1, 200));
    } finally {
      stop();
      file.close();
    }
  });

  it('reads every file in order when the log rotates again while it catches up', async () => {
    dir = mkdtempSync(join(tmpdir(), 'node-cli-follow-'));
    const path = join(dir, 'daemon.log');
    const file = new RotatingLogFile(path, { maxSize: 1000, maxFiles: 20 });
    file.write(`${line(0)}\n`);
    const seen: string[] = [];
    // Line 30 is read from a rotated file during a catch-up; writing then rotates the log twice
    // more, as a daemon writing on while the follower reads would.
    const stop = followLines(path, (text) => {
      seen.push(text);
      if (text === line(30)) for (let i = 61; i < 91; i++) file.write(`${line(i)}\n`);
    });
    try {
      for (let i = 1; i < 61; i++) file.write(`${line(i)}\n`);
      await waitFor(() => seen.length >= 90, 10_000, 'every line');
      expect(seen).toEqual(range(1, 91));
    } finally {
      stop();
      file.close();
    }
  });
});
