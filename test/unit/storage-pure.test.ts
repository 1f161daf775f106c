/**
 * The pure parts of the storage layer: the content addresses (the documented file id formula),
 * the body chunker at its boundaries, limits and early stops, the content encodings, the dl_status rule,
 * the CLI's --expires forms, the window of chunks in flight, which buffers may be written with
 * O_DIRECT, and the `--storage.volume` list.
 */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expiresOf } from '../../src/cli/expiry-input.js';
import { readConfigFile, resolveConfig } from '../../src/shared/config/resolve-config.js';
import { InvalidInputError } from '../../src/shared/errors.js';
import { encodeContent } from '../../src/daemon/rest/storage-routes.js';
import { chunkIdOf, fileIdOf, isContentId } from '../../src/daemon/storage/content-address.js';
import { bodyChunks } from '../../src/daemon/storage/body-chunks.js';
import { OrderedWindow } from '../../src/daemon/storage/ordered-window.js';
import { directWritable, pageAlignedBuffers } from '../../src/daemon/storage/aligned-buffers.js';
import { chunkStatusOf } from '../../src/daemon/storage/storage-layer.js';

async function split(pieces: Buffer[], chunkSize: number, max = 1 << 30): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of bodyChunks(Readable.from(pieces), {
    chunkSize,
    maxBytes: max,
    tooLarge: () => new Error('too large'),
    timedOut: () => new Error('timed out'),
  })) {
    chunks.push(Buffer.from(chunk));
  }
  return chunks;
}

describe('content addresses', () => {
  it('chunk id is the hex SHA-256 of the bytes', () => {
    expect(chunkIdOf(Buffer.from('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('file id is SHA-256 of the 8-byte big-endian size and the raw chunk ids in order', () => {
    const a = chunkIdOf(Buffer.from('a'));
    const b = chunkIdOf(Buffer.from('b'));
    const expected = createHash('sha256')
      .update(Buffer.from([0, 0, 0, 0, 0, 0, 0, 2]))
      .update(Buffer.from(a, 'hex'))
      .update(Buffer.from(b, 'hex'))
      .digest('hex');
    expect(fileIdOf([a, b], 2)).toBe(expected);
    expect(fileIdOf([b, a], 2)).not.toBe(expected);
    expect(fileIdOf([], 0)).toBe(createHash('sha256').update(Buffer.alloc(8)).digest('hex'));
    expect(isContentId(expected)).toBe(true);
    expect(isContentId(expected.toUpperCase())).toBe(false);
    expect(isContentId('abc')).toBe(false);
  });
});

/** Options of 4-byte chunks for the chunker's tests, at most 100 bytes unless told. */
const smallChunks = (options: { maxBytes?: number; idleMs?: number } = {}) => ({
  chunkSize: 4,
  maxBytes: 100,
  tooLarge: () => new Error('too large'),
  timedOut: () => new Error('timed out'),
  ...options,
});

describe('bodyChunks', () => {
  it('splits at exact boundaries whatever the pieces', async () => {
    const bytes = Buffer.from(Array.from({ length: 25 }, (_, i) => i));
    const pieces = [bytes.subarray(0, 3), bytes.subarray(3, 17), bytes.subarray(17)];
    const chunks = await split(pieces, 10);
    expect(chunks.map((c) => c.length)).toEqual([10, 10, 5]);
    expect(Buffer.concat(chunks)).toEqual(bytes);
  });

  it('yields nothing for an empty stream and one full chunk for exactly one chunk', async () => {
    expect(await split([], 10)).toEqual([]);
    expect((await split([Buffer.alloc(10, 7)], 10)).map((c) => c.length)).toEqual([10]);
    expect((await split([Buffer.alloc(11, 7)], 10)).map((c) => c.length)).toEqual([10, 1]);
  });

  it('refuses a stream past the limit', async () => {
    await expect(split([Buffer.alloc(6), Buffer.alloc(6)], 4, 10)).rejects.toThrow('too large');
    await expect(split([Buffer.alloc(10)], 4, 10)).resolves.toHaveLength(3);
  });

  it('splits a piece holding several chunks, and pauses the stream while a chunk waits', async () => {
    const source = new PassThrough();
    const chunks = bodyChunks(source, smallChunks());
    source.end(Buffer.from('abcdefghij'));
    const first = await chunks.next();
    expect(Buffer.from(first.value as Buffer).toString()).toBe('abcd');
    expect(source.isPaused()).toBe(true);
    const rest: string[] = [];
    for await (const chunk of chunks) rest.push(Buffer.from(chunk).toString());
    expect(rest).toEqual(['efgh', 'ij']);
  });

  it('refuses a stream that sends nothing for idleMs, leaving it undestroyed to answer on', async () => {
    const source = new PassThrough();
    source.write(Buffer.from('ab'));
    const chunks = bodyChunks(source, smallChunks({ idleMs: 20 }));
    await expect(chunks.next()).rejects.toThrow('timed out');
    expect(source.destroyed).toBe(false);
  });

  it('leaves a stream over the limit undestroyed, and destroys one its consumer stopped reading', async () => {
    const tooLong = new PassThrough();
    tooLong.write(Buffer.alloc(12));
    const refused = bodyChunks(tooLong, smallChunks({ maxBytes: 10 }));
    await expect(refused.next()).rejects.toThrow('too large');
    expect(tooLong.destroyed).toBe(false);

    const left = new PassThrough();
    left.write(Buffer.alloc(8));
    for await (const chunk of bodyChunks(left, smallChunks())) {
      expect(chunk).toHaveLength(4);
      break;
    }
    expect(left.destroyed).toBe(true);
  });

  it('fails a stream that closes before its end', async () => {
    const source = new PassThrough();
    source.write(Buffer.from('ab'));
    const chunks = bodyChunks(source, smallChunks());
    const next = chunks.next();
    source.destroy();
    await expect(next).rejects.toThrow('ended before its last byte');
  });
});

describe('encodeContent', () => {
  const bytes = Buffer.from([0x00, 0x41, 0xe2, 0x82, 0xac, 0xff]);

  it('round-trips every byte in base64, hex and binary', () => {
    expect(Buffer.from(encodeContent(bytes, 'base64'), 'base64')).toEqual(bytes);
    expect(Buffer.from(encodeContent(bytes, 'hex'), 'hex')).toEqual(bytes);
    expect(Buffer.from(encodeContent(bytes, 'binary'), 'latin1')).toEqual(bytes);
  });

  it('answers UTF-8 text as is and refuses bytes that are not UTF-8', () => {
    expect(encodeContent(Buffer.from('héllo €'), 'utf-8')).toBe('héllo €');
    expect(() => encodeContent(bytes, 'utf-8')).toThrow(InvalidInputError);
    expect(() => encodeContent(bytes, 'utf-8')).toThrow(/not valid UTF-8/);
  });
});

describe('chunkStatusOf', () => {
  it('is the worst replica state', () => {
    expect(chunkStatusOf({ a: 'ok', b: 'ok' })).toBe('downloaded');
    expect(chunkStatusOf({ a: 'ok', b: 'missing' })).toBe('missing');
    expect(chunkStatusOf({ a: 'corrupt', b: 'missing' })).toBe('corrupt');
    expect(chunkStatusOf({ a: 'corrupt', b: 'repairing' })).toBe('repairing');
    expect(chunkStatusOf({})).toBe('missing');
  });
});

describe('expiresOf', () => {
  const now = 1_800_000_000;

  it('reads never, durations and dates', () => {
    expect(expiresOf('never', now)).toBe(0);
    expect(expiresOf('0', now)).toBe(0);
    expect(expiresOf('90s', now)).toBe(now + 90);
    expect(expiresOf('30m', now)).toBe(now + 1800);
    expect(expiresOf('7d', now)).toBe(now + 7 * 86_400);
    expect(expiresOf('2030-01-01T00:00:00Z', now)).toBe(1_893_456_000);
  });

  it('refuses the past, zero durations and noise, naming the flag', () => {
    expect(() => expiresOf('2020-01-01', now)).toThrow(/--expires: .* not in the future/);
    expect(() => expiresOf('0s', now)).toThrow(/--expires/);
    expect(() => expiresOf('soon', now)).toThrow(/--expires: expected never/);
  });
});

describe('page-aligned chunk buffers', () => {
  it('are separate buffers of the asked size, each written directly only in whole 4 KiB blocks', () => {
    const buffers = pageAlignedBuffers(3, 3 * 4096 + 10);
    expect(buffers.map((buffer) => buffer.length)).toEqual([12298, 12298, 12298]);
    buffers.forEach((buffer, n) => buffer.fill(n + 1));
    expect(buffers.map((buffer) => [buffer[0], buffer.at(-1)])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(directWritable(buffers[1].subarray(0, 8192))).toBe(true);
    expect(directWritable(buffers[1])).toBe(false);
    expect(directWritable(buffers[1].subarray(512, 512 + 4096))).toBe(false);
    expect(directWritable(buffers[1].subarray(0, 0))).toBe(false);
  });

  it('ordinary buffers, whose start in memory is unknown, are never written directly', () => {
    expect(directWritable(Buffer.allocUnsafe(1 << 20))).toBe(false);
    expect(directWritable(new Uint8Array(new ArrayBuffer(65536)))).toBe(false);
  });
});

describe('OrderedWindow', () => {
  it('answers in the order work was added, whatever order it finishes in, and bounds the window', async () => {
    const window = new OrderedWindow<number>(2);
    let finishFirst: (value: number) => void = () => undefined;
    window.push(new Promise<number>((resolve) => (finishFirst = resolve)));
    window.push(Promise.resolve(2));
    expect(window.full()).toBe(true);
    const first = window.shift();
    finishFirst(1);
    expect(await first).toBe(1);
    expect(await window.shift()).toBe(2);
    expect(window.size).toBe(0);
  });

  it('holds a failure until it is shifted, without an unhandled rejection', async () => {
    const window = new OrderedWindow<number>(3);
    window.push(Promise.resolve(1));
    window.push(Promise.reject(new Error('disk gone')));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await window.shift()).toBe(1);
    await expect(window.shift()).rejects.toThrow('disk gone');
    window.push(Promise.reject(new Error('later')));
    await window.settle();
    expect(window.size).toBe(0);
  });
});

describe('--storage.volume', () => {
  it('takes several volumes from repeated flags (joined by ":"), the environment and a config file array', () => {
    const flags = resolveConfig({ flags: { 'storage.volume': 'a:/b' }, env: {}, file: {} });
    expect(flags.config['storage.volume']).toEqual([resolve('a'), '/b']);
    const env = resolveConfig({ flags: {}, env: { NODE_CLI_STORAGE_VOLUME: '/x:/y' }, file: {} });
    expect(env.config['storage.volume']).toEqual(['/x', '/y']);
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-config-'));
    try {
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ 'storage.volume': ['/p', '/q'] }));
      const file = readConfigFile(join(dir, 'config.json'));
      expect(resolveConfig({ flags: {}, env: {}, file }).config['storage.volume']).toEqual([
        '/p',
        '/q',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(resolveConfig({ flags: {}, env: {}, file: {} }).config['storage.volume']).toEqual([]);
  });

  it('refuses a volume named twice', () => {
    expect(() =>
      resolveConfig({ flags: { 'storage.volume': '/a:/a' }, env: {}, file: {} }),
    ).toThrow(/--storage.volume: a volume is named twice/);
  });
});
