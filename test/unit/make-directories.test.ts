import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectories } from '../../src/shared/make-directories.js';

describe('makeDirectories', () => {
  it('makes the missing directories of a path, and accepts those already there', () => {
    const root = mkdtempSync(join(tmpdir(), 'node-cli-mkdirs-'));
    try {
      const deep = join(root, 'a', 'b', 'c');
      makeDirectories(deep);
      makeDirectories(deep);
      expect(statSync(deep).isDirectory()).toBe(true);
      writeFileSync(join(root, 'file'), '');
      expect(() => makeDirectories(join(root, 'file'))).toThrow(/EEXIST/);
      expect(() => makeDirectories(join(root, 'file', 'd'))).toThrow(/ENOTDIR/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('throws where the file system refuses a directory under one that exists', () => {
    expect(() => makeDirectories('/proc/node-cli-nope/logs')).toThrow(/ENOENT/);
  });
});
