/**
 * Files read whole are read with a bound: one that never ends (/dev/zero, named where a small
 * file was meant) is refused past the bound instead of being read until memory runs out.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openNodeKey } from '../../src/daemon/datadir/node-key.js';
import { readBoundedTextSync } from '../../src/shared/bounded-read.js';
import { readGenesisFile } from '../../src/shared/genesis-file.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bounded-read-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readBoundedTextSync', () => {
  it('reads a file up to the bound, refuses one past it', () => {
    const file = join(dir, 'text');
    writeFileSync(file, 'é'.repeat(512));
    expect(readBoundedTextSync(file, 1024)).toBe('é'.repeat(512));
    expect(() => readBoundedTextSync(file, 1023)).toThrow('longer than 1023 bytes');
    expect(readBoundedTextSync(join(dir, 'text'), 64 * 1024)).toHaveLength(512);
  });

  it('stops reading a file that never ends', () => {
    expect(() => readBoundedTextSync('/dev/zero', 64 * 1024)).toThrow('longer than 64 KiB');
  });

  it('keeps the file system error of a missing file', () => {
    expect(() => readBoundedTextSync(join(dir, 'absent'), 10)).toThrow(/ENOENT/);
  });
});

describe('the files the daemon reads whole', () => {
  it('refuses /dev/zero as a genesis file', () => {
    expect(() => readGenesisFile('/dev/zero')).toThrow(
      'cannot read genesis file /dev/zero: longer than 256 MiB',
    );
  });

  it('refuses /dev/zero as --node-key.password-file', async () => {
    await expect(
      openNodeKey(join(dir, 'node_key.json'), { passwordFile: '/dev/zero', kdf: 'light' }),
    ).rejects.toThrow('cannot read --node-key.password-file /dev/zero: longer than 64 KiB');
  });
});
