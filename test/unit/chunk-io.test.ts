/**
 * The optional chunk-io addon (native/chunk-io): its hash equals node:crypto's, its replica
 * writes land whole under the final name and fail with node:fs's kind of errors, and a volume
 * using it falls back to the page cache when O_DIRECT is refused; its replica reads give the bytes
 * and their hash as node:fs and node:crypto would; it marks a directory as a top directory where
 * the file system has the mark. Without the addon built only the loader's case runs.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  writeSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { directReadRoom, pageAlignedBuffers } from '../../src/daemon/storage/aligned-buffers.js';
import {
  CHUNK_IO_ADDON,
  loadChunkIo,
  type ChunkIo,
  type NativeRead,
} from '../../src/daemon/storage/chunk-io.js';
import { StorageVolume } from '../../src/daemon/storage/volume.js';

const chunkIo = loadChunkIo();
const withAddon = chunkIo ? describe : describe.skip;

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function scratch(): string {
  const root = mkdtempSync(join(tmpdir(), 'node-cli-chunk-io-'));
  roots.push(root);
  return root;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** What `call` threw (the addon's errors come from another realm than jest's `TypeError`). */
function thrownBy(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('loadChunkIo', () => {
  it('is absent, and says so at debug, when the addon was not built', () => {
    const debug: string[] = [];
    const logger = { debug: (line: string) => debug.push(line), info() {}, warn() {}, error() {} };
    expect(loadChunkIo(logger, new URL('./no-such-addon.node', CHUNK_IO_ADDON))).toBeUndefined();
    expect(debug).toEqual(['chunk-io addon absent: chunks go through WebCrypto and node:fs']);
  });

  it('is loaded when the addon was built', () => {
    expect(loadChunkIo() !== undefined).toBe(existsSync(CHUNK_IO_ADDON));
  });
});

withAddon('sha256Hex', () => {
  const io = chunkIo as ChunkIo;

  it.each([
    ['no bytes', Buffer.alloc(0)],
    ['one byte', Buffer.from([7])],
    ['a MiB', randomBytes(1 << 20)],
  ])('hashes %s as node:crypto does', async (_what, bytes) => {
    expect(await io.sha256Hex(bytes)).toBe(sha256(bytes));
  });

  it('hashes a view by its own bytes, not the whole memory under it', async () => {
    const whole = randomBytes(10_000);
    const view = whole.subarray(1234, 5678);
    expect(await io.sha256Hex(view)).toBe(sha256(view));
    const [aligned] = pageAlignedBuffers(1, 8192);
    randomBytes(8192).copy(aligned);
    expect(await io.sha256Hex(aligned)).toBe(sha256(aligned));
  });

  it('refuses what is not a Uint8Array', () => {
    expect(thrownBy(() => io.sha256Hex('text' as unknown as Uint8Array))).toMatchObject({
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_TYPE',
      message: 'sha256Hex(bytes): bytes must be a Uint8Array',
    });
  });
});

withAddon('writeReplica', () => {
  const io = chunkIo as ChunkIo;

  it('writes the bytes under the final name, with or without O_DIRECT, leaving no temporary', async () => {
    const root = scratch();
    const [aligned] = pageAlignedBuffers(1, 8192);
    randomBytes(8192).copy(aligned);
    for (const [name, bytes, direct] of [
      ['direct', aligned, true],
      ['cached', randomBytes(5000), false],
    ] as const) {
      await io.writeReplica(join(root, `${name}.tmp`), join(root, name), bytes, direct);
      expect(readFileSync(join(root, name))).toEqual(Buffer.from(bytes));
    }
    expect(readdirSync(root).sort()).toEqual(['cached', 'direct']);
  });

  it('fails as node:fs does, naming the step and the path, and removes its temporary', async () => {
    const root = scratch();
    const missingDir = join(root, 'missing', 'x.tmp');
    await expect(
      io.writeReplica(missingDir, join(root, 'x'), Buffer.from('a'), false),
    ).rejects.toMatchObject({
      code: 'ENOENT',
      syscall: 'open',
      message: expect.stringContaining(missingDir),
    });
    const temp = join(root, 'y.tmp');
    await expect(
      io.writeReplica(temp, join(root, 'missing', 'y'), Buffer.from('b'), false),
    ).rejects.toMatchObject({
      code: 'ENOENT',
      syscall: 'rename',
    });
    expect(readdirSync(root)).toEqual([]);
  });

  it('refuses arguments of the wrong kind', () => {
    expect(
      thrownBy(() => io.writeReplica('a', 'b', 'bytes' as unknown as Uint8Array, false)),
    ).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  });

  it('a volume on it writes through the page cache once O_DIRECT is refused, and stops trying', async () => {
    const root = scratch();
    const direct: boolean[] = [];
    const refusing: ChunkIo = {
      sha256Hex: (bytes) => io.sha256Hex(bytes),
      readReplica: (path, into) => io.readReplica(path, into),
      markTopDirectory: (path) => io.markTopDirectory(path),
      writeReplica: async (temp, final, bytes, useDirect) => {
        direct.push(useDirect);
        if (useDirect)
          throw Object.assign(new Error('EINVAL: invalid argument'), { code: 'EINVAL' });
        return io.writeReplica(temp, final, bytes, useDirect);
      },
    };
    const volume = new StorageVolume(root, refusing);
    await volume.create();
    const buffers = pageAlignedBuffers(2, 8192);
    for (const [n, bytes] of buffers.entries()) {
      bytes.fill(n + 1);
      const id = sha256(bytes);
      await volume.write(id, bytes);
      expect(readFileSync(volume.chunkPath(id))).toEqual(Buffer.from(bytes));
    }
    expect(direct).toEqual([true, false, false]);
    const shards = readdirSync(join(root, 'chunks'));
    for (const shard of shards) {
      expect(readdirSync(join(root, 'chunks', shard)).filter((n) => n.endsWith('.tmp'))).toEqual(
        [],
      );
    }
  });
});

withAddon('readReplica', () => {
  const io = chunkIo as ChunkIo;

  it.each([
    ['an empty file', 0, 1],
    ['a file shorter than the buffer', 1000, 1001],
    ['a file of the buffer size', 4096, 4096],
    ['a file longer than the buffer: the buffer is filled', 1024 * 1024 + 7, 1024 * 1024 + 1],
  ])('reads %s and hashes the bytes read', async (_, size, room) => {
    const path = join(scratch(), 'replica');
    const bytes = randomBytes(size);
    writeFileSync(path, bytes);
    const into = Buffer.alloc(room);
    const read = await io.readReplica(path, into);
    const expected = bytes.subarray(0, Math.min(size, room));
    expect(read).toEqual({ bytesRead: expected.length, offset: 0, sha256Hex: sha256(expected) });
    expect(into.subarray(0, expected.length).equals(expected)).toBe(true);
  });

  it('answers undefined for a missing file or a path through a file', async () => {
    const root = scratch();
    writeFileSync(join(root, 'file'), 'x');
    expect(await io.readReplica(join(root, 'nothing'), Buffer.alloc(4))).toBeUndefined();
    expect(await io.readReplica(join(root, 'file', 'below'), Buffer.alloc(4))).toBeUndefined();
  });

  it('reads nothing from a directory or a FIFO, without waiting for a writer', async () => {
    const root = scratch();
    execFileSync('mkfifo', [join(root, 'fifo')]);
    for (const path of [root, join(root, 'fifo')]) {
      expect(await io.readReplica(path, Buffer.alloc(4))).toEqual({
        bytesRead: 0,
        offset: 0,
        sha256Hex: sha256(Buffer.alloc(0)),
      });
    }
  });

  it('rejects with the code and step of another failure', async () => {
    const loop = join(scratch(), 'loop');
    symlinkSync(loop, loop);
    await expect(io.readReplica(loop, Buffer.alloc(4))).rejects.toMatchObject({
      code: 'ELOOP',
      syscall: 'open',
    });
  });

  it('refuses arguments of the wrong kind', () => {
    expect(thrownBy(() => io.readReplica('a', 'bytes' as unknown as Uint8Array))).toMatchObject({
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_TYPE',
    });
    for (const most of [-1, 5, 'many']) {
      expect(
        thrownBy(() => io.readReplica('a', Buffer.alloc(4), most as unknown as number)),
      ).toMatchObject({ name: 'TypeError', message: expect.stringMatching(/maxBytes/) });
    }
  });

  it.each([
    ['one byte', 1, 2],
    ['a block less one byte', 4095, 4096],
    ['a whole chunk', 1024 * 1024, 1024 * 1024 + 1],
    ['a chunk grown by damage: up to maxBytes', 1024 * 1024 + 9000, 1024 * 1024 + 1],
  ])(
    'reads %s with room for whole blocks, cold past the page cache and warm from it',
    async (_, size, maxBytes) => {
      const root = scratch();
      const path = join(root, 'replica');
      const bytes = randomBytes(size);
      writeSynced(path, bytes);
      const expected = bytes.subarray(0, Math.min(size, maxBytes));
      const check = async () => {
        const into = Buffer.alloc(directReadRoom(maxBytes));
        const read = (await io.readReplica(path, into, maxBytes)) as NativeRead;
        expect(read.bytesRead).toBe(expected.length);
        expect(read.sha256Hex).toBe(sha256(expected));
        expect(read.offset).toBeLessThan(4096);
        expect(into.subarray(read.offset, read.offset + read.bytesRead).equals(expected)).toBe(
          true,
        );
      };
      dropCached(path);
      const known = cachedBytesOf(path) === 0;
      await check();
      // Where the file system takes O_DIRECT and fincore can tell, the cold read cached nothing.
      if (known && takesDirectReads(root)) expect(cachedBytesOf(path)).toBe(0);
      readFileSync(path);
      await check();
    },
  );
});

/** Writes `bytes` to `path` and syncs them, so that their cached pages are clean and droppable. */
function writeSynced(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Asks the kernel to forget the cached pages of `path` (they must be clean). */
function dropCached(path: string): void {
  execFileSync('dd', [`if=${path}`, 'iflag=nocache', 'count=0', 'status=none']);
}

/** Bytes of `path` in the page cache, from fincore; undefined without it. */
function cachedBytesOf(path: string): number | undefined {
  try {
    const output = execFileSync(
      'fincore',
      ['--bytes', '--noheadings', '--raw', '-o', 'RES', path],
      {
        encoding: 'utf8',
        stdio: 'pipe',
      },
    );
    return Number(output.trim());
  } catch {
    return undefined;
  }
}

function takesDirectReads(dir: string): boolean {
  try {
    execFileSync(
      'dd',
      [`if=${join(dir, 'replica')}`, 'of=/dev/null', 'bs=4096', 'count=1', 'iflag=direct'],
      {
        stdio: 'ignore',
      },
    );
    return true;
  } catch {
    return false;
  }
}

/** The directory's attribute letters from `lsattr -d`, or undefined without lsattr. */
function attributesOf(path: string): string | undefined {
  try {
    return execFileSync('lsattr', ['-d', path], { encoding: 'utf8', stdio: 'pipe' }).split(' ')[0];
  } catch {
    return undefined;
  }
}

withAddon('markTopDirectory', () => {
  const io = chunkIo as ChunkIo;

  it('answers false for a path that is not a directory', () => {
    const root = scratch();
    writeFileSync(join(root, 'file'), 'x');
    expect(io.markTopDirectory(join(root, 'missing'))).toBe(false);
    expect(io.markTopDirectory(join(root, 'file'))).toBe(false);
    expect(thrownBy(() => io.markTopDirectory(7 as unknown as string))).toMatchObject({
      name: 'TypeError',
    });
  });

  it("sets the T attribute where the file system has it, and a volume's chunks/ gets it", async () => {
    const root = scratch();
    const probe = join(root, 'probe');
    mkdirSync(probe);
    const marked = io.markTopDirectory(probe);
    const attributes = attributesOf(probe);
    if (attributes !== undefined) expect(attributes.includes('T')).toBe(marked);
    const volume = new StorageVolume(join(root, 'volume'), io);
    await volume.create();
    if (marked && attributes !== undefined) {
      expect(attributesOf(join(root, 'volume', 'chunks'))).toContain('T');
    }
  });
});
