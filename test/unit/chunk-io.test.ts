/**
 * The chunk I/O threads: hashes equal SHA-256 computed here, a durable write leaves the bytes
 * at the target and nothing at the temporary name, failures carry the errno code the volume
 * maps to a reason, shared chunk buffers are read in place, and closing fails the jobs in hand
 * while later jobs start threads again.
 */
import { afterEach, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pageAlignedBuffers } from '../../src/daemon/storage/aligned-buffers.js';
import { ChunkIo } from '../../src/daemon/storage/chunk-io.js';

const IO_THREAD_ENTRY = new URL('../../dist/daemon/storage/chunk-io-thread.js', import.meta.url);

const io = new ChunkIo(IO_THREAD_ENTRY);
const roots: string[] = [];
afterEach(async () => {
  await io.close();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'node-cli-chunk-io-'));
  roots.push(root);
  return root;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

it('hashes plain and shared buffers, many at once, as SHA-256 does', async () => {
  const plain = Array.from({ length: 20 }, (_, n) => randomBytes(n * 1000));
  const [shared] = pageAlignedBuffers(1, 70_000);
  shared.set(randomBytes(shared.length));
  const inputs = [...plain, shared, shared.subarray(5, 60_000)];
  expect(await Promise.all(inputs.map((bytes) => io.hash(bytes)))).toEqual(inputs.map(sha256));
});

it('writes the bytes durably under the target name, directly from shared memory', async () => {
  const root = tempRoot();
  const [shared] = pageAlignedBuffers(1, 8192);
  shared.set(randomBytes(shared.length));
  await io.write(shared, join(root, 'a.tmp'), join(root, 'a'), true);
  await io.write(Buffer.from('plain'), join(root, 'b.tmp'), join(root, 'b'), false);
  expect(readFileSync(join(root, 'a'))).toEqual(Buffer.from(shared));
  expect(readFileSync(join(root, 'b'), 'utf8')).toBe('plain');
  expect(existsSync(join(root, 'a.tmp')) || existsSync(join(root, 'b.tmp'))).toBe(false);
});

it('fails with the errno code of the step that failed', async () => {
  const root = tempRoot();
  await expect(
    io.write(Buffer.from('x'), join(root, 'missing', 'c.tmp'), join(root, 'c'), false),
  ).rejects.toMatchObject({ code: 'ENOENT', message: expect.stringContaining('c.tmp') });
  // Written and synced, then the rename finds no directory.
  await expect(
    io.write(Buffer.from('x'), join(root, 'd.tmp'), join(root, 'missing', 'd'), false),
  ).rejects.toMatchObject({ code: 'ENOENT' });
  expect(readFileSync(join(root, 'd.tmp'), 'utf8')).toBe('x');
});

it('fails the jobs in hand when closed, and starts threads again for later jobs', async () => {
  const pending = Array.from({ length: 8 }, () => io.hash(randomBytes(1 << 20)));
  await io.close();
  const outcomes = await Promise.allSettled(pending);
  const failed = outcomes.filter((outcome) => outcome.status === 'rejected');
  expect(failed.length).toBeGreaterThan(0);
  for (const outcome of failed) {
    expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/chunk I\/O thread stopped/);
  }
  expect(await io.hash(Buffer.from('again'))).toBe(sha256(Buffer.from('again')));
});
