/**
 * A volume on a file system that refuses O_DIRECT (a ramfs: EINVAL at open, as tmpfs before
 * Linux 6.6 does): the chunk is written through the page cache instead, intact, and the volume
 * does not try O_DIRECT again. Skipped where the tests may not mount.
 */
import { afterEach, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pageAlignedBuffers } from '../../src/daemon/storage/aligned-buffers.js';
import { ChunkIo } from '../../src/daemon/storage/chunk-io.js';
import { chunkIdOf } from '../../src/daemon/storage/content-address.js';
import { StorageVolume } from '../../src/daemon/storage/volume.js';
import { canMountTmpfs, mountRamfs, unmountTmpfs } from '../helpers/tmpfs.js';

const IO_THREAD_ENTRY = new URL('../../dist/daemon/storage/chunk-io-thread.js', import.meta.url);

const io = new ChunkIo(IO_THREAD_ENTRY);
const mounts: string[] = [];
afterEach(async () => {
  await io.close();
  for (const mount of mounts.splice(0)) unmountTmpfs(mount);
});

const maybe = canMountTmpfs ? it : it.skip;

maybe(
  'writes through the page cache after the file system refuses O_DIRECT, and stops trying it',
  async () => {
    const root = mountRamfs() as string;
    mounts.push(root);
    const directWrites: boolean[] = [];
    const write = io.write.bind(io);
    io.write = (bytes, temp, target, direct) => {
      directWrites.push(direct);
      return write(bytes, temp, target, direct);
    };
    const volume = new StorageVolume(root, io);
    await volume.create();
    const [first, second] = pageAlignedBuffers(2, 8192);
    first.fill(1);
    second.fill(2);
    for (const bytes of [first, second]) {
      const id = chunkIdOf(bytes);
      await volume.write(id, bytes);
      expect(readFileSync(volume.chunkPath(id))).toEqual(Buffer.from(bytes));
    }
    // One refused direct write, then the page cache for it and for the next chunk.
    expect(directWrites).toEqual([true, false, false]);
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);
  },
);
