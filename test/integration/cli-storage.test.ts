/**
 * The `files` and `chunk` commands against a real daemon, as a user runs them: round trips of
 * the edge sizes through `files add` and `files get` (bytes, and every encoding), tables for
 * people and `--json` for scripts, a progress bar on a terminal (through script(1)) and none off
 * one, removal, and the exit codes of bad input (2) and of the daemon's refusals (1).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChunkDetail, FileDetail, FileListItem } from '../../src/shared/storage-api.js';
import { CLI_ENTRY, runCli, runCliJson } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const MiB = 1024 * 1024;
const execFileAsync = promisify(execFile);
const SIZES = [0, 1, MiB, MiB + 1, 50 * MiB];
/** A CLI process per transfer and 50 MiB strings in four encodings: minutes on a loaded machine. */
const ROUND_TRIP_TIMEOUT_MS = 300_000;

let daemon: TestDaemon;
let work: string;
let datadir: string[];

beforeAll(async () => {
  daemon = await startTestDaemon(['--storage.scrub-rate', '0']);
  datadir = ['--datadir', daemon.dataDir];
  work = mkdtempSync(join(tmpdir(), 'node-cli-files-'));
});

afterAll(async () => {
  await daemon?.stop();
  rmSync(work, { recursive: true, force: true });
});

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Writes `bytes` under `name` in the work directory and answers its path. */
function source(name: string, bytes: Buffer): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

describe('round trips', () => {
  it(
    'files add then files get give back the same bytes, for every size',
    async () => {
      const inputs = SIZES.map((size) => ({ size, bytes: randomBytes(size) }));
      const paths = inputs.map(({ size, bytes }) => source(`random-${size}`, bytes));
      const added = await runCliJson<FileDetail[]>(['files', 'add', ...paths, ...datadir]);
      expect(added.map((file) => [file.localPath, file.size, file.ul_status])).toEqual(
        inputs.map(({ size }, index) => [paths[index], size, 'uploaded']),
      );
      for (const [index, file] of added.entries()) {
        const output = join(work, `out-${file.size}`);
        const got = await runCliJson<{ size: number; output: string }>([
          'files',
          'get',
          file.id,
          '-o',
          output,
          ...datadir,
        ]);
        expect(got).toEqual({ id: file.id, size: file.size, output });
        expect(sha256(readFileSync(output))).toBe(sha256(inputs[index].bytes));
      }
    },
    ROUND_TRIP_TIMEOUT_MS,
  );

  it('files add stores a file whose size says 0 but which has content (/proc)', async () => {
    const [file] = await runCliJson<FileDetail[]>([
      'files',
      'add',
      '/proc/self/status',
      ...datadir,
    ]);
    expect(file.ul_status).toBe('uploaded');
    expect(file.size).toBeGreaterThan(0);
  });

  it(
    'files get --encoding writes base64, hex, binary and utf-8 that decode to the bytes',
    async () => {
      for (const size of SIZES) {
        const bytes = randomBytes(size);
        for (let i = 0; i < size; i += 1) bytes[i] = 0x20 + (bytes[i] % 0x5f);
        const [file] = await runCliJson<FileDetail[]>([
          'files',
          'add',
          source(`text-${size}`, bytes),
          ...datadir,
        ]);
        const decoders: Record<string, (text: Buffer) => Buffer> = {
          base64: (text) => Buffer.from(text.toString('utf8'), 'base64'),
          hex: (text) => Buffer.from(text.toString('utf8'), 'hex'),
          binary: (text) => text,
          'utf-8': (text) => text,
        };
        for (const [encoding, decode] of Object.entries(decoders)) {
          const output = join(work, `text-${size}.${encoding}`);
          const result = await runCli([
            'files',
            'get',
            file.id,
            '--encoding',
            encoding,
            '-o',
            output,
            ...datadir,
          ]);
          expect(result.code).toBe(0);
          expect(sha256(decode(readFileSync(output)))).toBe(sha256(bytes));
        }
      }
    },
    ROUND_TRIP_TIMEOUT_MS,
  );

  it('files get --encoding binary writes the bytes themselves, those above 0x7f too', async () => {
    // Every byte value, and ö in UTF-8 (c3 b6), which must not come back as c3 83 c2 b6.
    const bytes = Buffer.concat([
      Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      Buffer.from('ö'),
    ]);
    const [file] = await runCliJson<FileDetail[]>([
      'files',
      'add',
      source('latin1', bytes),
      ...datadir,
    ]);
    const output = join(work, 'latin1.binary');
    const result = await runCli([
      'files',
      'get',
      file.id,
      '--encoding',
      'binary',
      '-o',
      output,
      ...datadir,
    ]);
    expect(result.code).toBe(0);
    expect(readFileSync(output).toString('hex')).toBe(bytes.toString('hex'));
  });

  it('files get without -o streams the bytes to stdout, and no progress bar is drawn off a terminal', async () => {
    const bytes = Buffer.from('hello storage\n');
    const [file] = await runCliJson<FileDetail[]>([
      'files',
      'add',
      source('hello.txt', bytes),
      ...datadir,
    ]);
    const got = await runCli(['files', 'get', file.id, ...datadir]);
    expect(got.code).toBe(0);
    expect(got.stdout).toBe('hello storage\n');
    const big = await runCli(['files', 'add', source('big', randomBytes(5 * MiB)), ...datadir]);
    expect(big.code).toBe(0);
    expect(big.stderr).toBe('');
    expect(big.stdout).toMatch(/^[0-9a-f]{64} {2}uploaded {2}5242880 bytes {2}\S+big\n$/);
  });
});

describe('on a terminal', () => {
  it('files add and files get draw a progress bar with bytes, rate and ETA', async () => {
    const path = source('terminal.bin', randomBytes(5 * MiB));
    const output = join(work, 'terminal.out');
    // util-linux script(1) runs the command on a pseudo-terminal and copies what it prints.
    const onTerminal = (args: string[]) =>
      execFileAsync('script', [
        '-qfec',
        [process.execPath, CLI_ENTRY, ...args, ...datadir].map((arg) => `'${arg}'`).join(' '),
        '/dev/null',
      ]);
    const added = await onTerminal(['files', 'add', path]);
    expect(added.stdout).toMatch(
      /add \S+terminal\.bin \[.*\] 100% \| 5\.0\/5\.0 MiB \| [\d.]+ MiB\/s \| ETA/,
    );
    const id = /([0-9a-f]{64}) {2}uploaded/.exec(added.stdout)?.[1] as string;
    const got = await onTerminal(['files', 'get', id, '-o', output]);
    expect(got.stdout).toMatch(/get \S+terminal\.out \[.*\] 100% \| 5\.0\/5\.0 MiB/);
    expect(readFileSync(output).equals(readFileSync(path))).toBe(true);
  });
});

describe('listing and inspecting', () => {
  it('files ls/show and chunk ls/show: tables for people, the REST objects with --json', async () => {
    const common = randomBytes(MiB);
    const first = source('first', Buffer.concat([common, Buffer.from('1')]));
    const second = source('second', Buffer.concat([common, Buffer.from('2')]));
    const [a, b] = await runCliJson<FileDetail[]>([
      'files',
      'add',
      first,
      second,
      '--expires',
      '7d',
      '--autorenew',
      ...datadir,
    ]);
    expect(a.expires).toBeGreaterThan(Date.now() / 1000 + 6 * 86_400);
    expect(a.autorenew).toBe(true);

    const { files } = await runCliJson<{ files: FileListItem[] }>(['files', 'ls', ...datadir]);
    expect(files.find((file) => file.id === a.id)).toMatchObject({
      localPath: first,
      chunkCount: 2,
    });
    const table = await runCli(['files', 'ls', ...datadir]);
    expect(table.stdout).toMatch(
      /│ id +│ size +│ chunks +│ redundancy +│ expires +│ autorenew +│ localPath/,
    );
    expect(table.stdout).toContain(a.id);

    expect(await runCliJson<FileDetail>(['files', 'show', a.id, ...datadir])).toEqual(a);
    const shown = await runCli(['files', 'show', a.id, ...datadir]);
    expect(shown.stdout).toMatch(/ul_status +uploaded/);

    const chunk = await runCliJson<ChunkDetail>(['chunk', 'show', a.chunkIds[0], ...datadir]);
    expect(chunk.belongsToFiles).toEqual(
      expect.arrayContaining([
        [a.id, 0, first],
        [b.id, 0, second],
      ]),
    );
    expect(chunk.dl_status).toBe('downloaded');
    const { chunks } = await runCliJson<{ chunks: { id: string }[] }>(['chunk', 'ls', ...datadir]);
    expect(chunks.map((item) => item.id)).toEqual(expect.arrayContaining(a.chunkIds));
    const page = await runCliJson<{ chunks: unknown[]; nextCursor?: string }>([
      'chunk',
      'ls',
      '--limit',
      '1',
      ...datadir,
    ]);
    expect(page.chunks).toHaveLength(1);
    expect(page.nextCursor).toMatch(/^[0-9a-f]{64}$/);

    expect(await runCliJson(['files', 'rm', a.id, ...datadir])).toEqual({ removed: a.id });
    expect((await runCli(['files', 'show', a.id, ...datadir])).code).toBe(1);
    const kept = join(work, 'kept');
    await runCliJson(['files', 'get', b.id, '-o', kept, ...datadir]);
    expect(readFileSync(kept).equals(Buffer.concat([common, Buffer.from('2')]))).toBe(true);
  });
});

describe('a download the daemon ends early', () => {
  it('files get of a file that lost a chunk exits 1 saying so, and leaves no output file', async () => {
    const bytes = randomBytes(8 * MiB);
    const [file] = await runCliJson<FileDetail[]>([
      'files',
      'add',
      source('losing', bytes),
      ...datadir,
    ]);
    // The only replica of a middle chunk damaged: the daemon stops the raw download there.
    const lost = file.chunkIds[5];
    const replica = join(daemon.dataDir, 'storage', 'chunks', lost.slice(0, 2), lost);
    writeFileSync(replica, Buffer.alloc(MiB));
    const output = join(work, 'lost.bin');
    const got = await runCli(['files', 'get', file.id, '-o', output, ...datadir]);
    expect(got.code).toBe(1);
    expect(got.message).toMatch(
      new RegExp(`the download of ${file.id} \\(${bytes.length} bytes\\) ended early`),
    );
    expect(readdirSync(work).filter((name) => name.startsWith('lost.bin'))).toEqual([]);
  });
});

describe('bad input', () => {
  it('exits 2 for usage errors and 1 for what the daemon refuses, with the reason', async () => {
    const zeros = '0'.repeat(64);
    const missing = await runCli(['files', 'show', zeros, ...datadir]);
    expect(missing.code).toBe(1);
    expect(missing.message).toMatch(/REST error 404: file 0{64} not found/);
    const usageErrors: Array<[string[], RegExp]> = [
      [['files', 'add', join(work, 'absent')], /cannot read .*absent/],
      [
        ['files', 'add', source('x', Buffer.from('x')), '--expires', 'soon'],
        /--expires: expected never/,
      ],
      [
        ['files', 'add', source('y', Buffer.from('y')), '--autorenew'],
        /--autorenew needs --expires/,
      ],
      [['files', 'get', zeros, '--json'], /--json needs -o FILE/],
      [['chunk', 'show', 'nope'], /invalid chunk id "nope": expected 64 lower-case hex digits/],
      [['files', 'add', source('z', Buffer.from('z')), '--redundancy', '0'], /redundancy/],
    ];
    for (const [args, message] of usageErrors) {
      const refused = await runCli([...args, ...datadir]);
      expect({ args, code: refused.code }).toEqual({ args, code: 2 });
      expect(refused.message + refused.stdout).toMatch(message);
    }
  });
});
