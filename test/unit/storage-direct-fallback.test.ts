/**
 * A volume on a file system that refuses O_DIRECT (EINVAL at open, as tmpfs before Linux 6.6
 * does): the chunk is written through the page cache instead, intact, and the volume does not
 * try O_DIRECT again. The refusal is simulated by wrapping `open`; the rest is the real thing.
 */
import { afterEach, expect, it, jest } from '@jest/globals';
import { constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const directOpens: string[] = [];

jest.unstable_mockModule('node:fs/promises', () => ({
  ...fsPromises,
  open: async (path: string, flags?: string | number, mode?: number) => {
    if (typeof flags === 'number' && (flags & constants.O_DIRECT) !== 0) {
      directOpens.push(path);
      throw Object.assign(new Error(`EINVAL: invalid argument, open '${path}'`), {
        code: 'EINVAL',
      });
    }
    return fsPromises.open(path, flags, mode);
  },
}));

const { StorageVolume } = await import('../../src/daemon/storage/volume.js');
const { pageAlignedBuffers } = await import('../../src/daemon/storage/aligned-buffers.js');
const { chunkIdOf } = await import('../../src/daemon/storage/content-address.js');

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

it('writes through the page cache after the file system refuses O_DIRECT, and stops trying it', async () => {
  const root = mkdtempSync(join(tmpdir(), 'node-cli-direct-'));
  roots.push(root);
  const volume = new StorageVolume(root);
  await volume.create();
  const [first, second] = pageAlignedBuffers(2, 8192);
  first.fill(1);
  second.fill(2);
  for (const bytes of [first, second]) {
    const id = chunkIdOf(bytes);
    await volume.write(id, bytes);
    expect(readFileSync(volume.chunkPath(id))).toEqual(Buffer.from(bytes));
  }
  expect(directOpens).toHaveLength(1);
  expect(directOpens[0]).toMatch(/\.tmp$/);
  expect(directOpens[0]).toContain(join(root, 'chunks'));
});
