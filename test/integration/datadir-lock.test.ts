/**
 * The data directory belongs to at most one daemon, and the CLI signals only that daemon:
 * the lock is the kernel's (it holds under any race and vanishes with its process), and a
 * `daemon.json` whose pid now belongs to another process is stale, never a target.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processStartTime } from '../../src/shared/process-identity.js';
import { runCli, runCliJson, runCliJsonWithCode } from '../helpers/cli.js';
import { isAlive, waitFor } from '../helpers/processes.js';
import { LOOPBACK_FLAGS, makeDataDir } from '../helpers/test-daemon.js';

const LOCK_MODULE = fileURLToPath(new URL('../../dist/shared/datadir-lock.js', import.meta.url));

/** A process that has nothing to do with node-cli, standing in for a reused pid. */
function startBystander(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}

function plantRecord(dataDir: string, pid: number): void {
  writeFileSync(
    join(dataDir, 'daemon.json'),
    JSON.stringify({
      pid,
      processStartTime: processStartTime(pid),
      version: '0.1.0',
      startedAt: new Date().toISOString(),
      dataDir,
      endpoints: { http: 'http://127.0.0.1:1' },
    }),
  );
  writeFileSync(join(dataDir, 'daemon.lock'), `${JSON.stringify({ pid })}\n`);
}

describe('daemon.json identity', () => {
  const bystanders: ChildProcess[] = [];
  afterAll(() => {
    for (const child of bystanders) child.kill('SIGKILL');
  });

  it('treats a record pointing at a live unrelated process as stale in status, stop and start', async () => {
    const bystander = startBystander();
    bystanders.push(bystander);
    const pid = bystander.pid!;
    const dataDir = makeDataDir();
    try {
      plantRecord(dataDir, pid);
      const status = await runCliJsonWithCode<{ running: boolean; stalePid?: number }>([
        'daemon',
        'status',
        '--datadir',
        dataDir,
      ]);
      expect(status).toMatchObject({ code: 3, value: { running: false, stalePid: pid } });
      expect(isAlive(pid)).toBe(true);

      plantRecord(dataDir, pid);
      const stop = await runCli(['daemon', 'stop', '--datadir', dataDir, '--json']);
      expect(stop.code).toBe(0);
      expect(JSON.parse(stop.stdout)).toEqual({ stopped: false, stalePid: pid });
      expect(isAlive(pid)).toBe(true);

      plantRecord(dataDir, pid);
      const started = await runCliJson<{ pid: number }>([
        'daemon',
        'start',
        '--datadir',
        dataDir,
        ...LOOPBACK_FLAGS,
      ]);
      expect(started.pid).not.toBe(pid);
      const stopped = await runCliJson<{ stopped: boolean; pid: number }>([
        'daemon',
        'stop',
        '--datadir',
        dataDir,
      ]);
      expect(stopped).toMatchObject({ stopped: true, pid: started.pid });
      expect(isAlive(pid)).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const ROUNDS = 20;
const RACERS = 6;
/** Longer than a taker's retry on a held lock, so each round is decided before the next. */
const ROUND_SPACING_MS = 400;

/**
 * Starts a process that, in each round, takes that round's lock at the same moment as the
 * others (spinning until it) and keeps what it took; resolves to the rounds it held.
 */
function racer(
  dir: string,
  firstRoundAt: number,
): Promise<{ child: ChildProcess; held: number[] }> {
  const script = `
    const { DataDirLock } = await import(${JSON.stringify(LOCK_MODULE)});
    const kept = [];
    for (let round = 0; round < ${ROUNDS}; round += 1) {
      const goAt = ${firstRoundAt} + round * ${ROUND_SPACING_MS};
      while (Date.now() < goAt);
      const lock = DataDirLock.tryAcquire(${JSON.stringify(dir)} + '/round-' + round + '.lock', { pid: process.pid });
      if (lock) kept.push(round);
    }
    process.stdout.write(JSON.stringify(kept) + '\\n');
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.endsWith('\n')) resolve({ child, held: JSON.parse(output) as number[] });
    });
    child.once('exit', (code) => reject(new Error(`racer exited (${code}) before answering`)));
  });
}

describe('data directory lock', () => {
  it('has exactly one holder in each of 20 rounds of 6 racing processes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-lock-'));
    try {
      // Far enough ahead that every racer has loaded and is spinning when the first round comes.
      const firstRoundAt = Date.now() + 3_000;
      const racers = await Promise.all(
        Array.from({ length: RACERS }, () => racer(dir, firstRoundAt)),
      );
      const holders = Array.from({ length: ROUNDS }, () => 0);
      for (const { held } of racers) for (const round of held) holders[round] += 1;
      await Promise.all(
        racers.map(
          ({ child }) =>
            new Promise<void>((resolve) => {
              child.once('exit', () => resolve());
              child.stdin!.end();
            }),
        ),
      );
      expect(holders).toEqual(Array.from({ length: ROUNDS }, () => 1));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets exactly one of three daemons racing on one data directory start', async () => {
    const dataDir = makeDataDir();
    try {
      const results = await Promise.all(
        Array.from({ length: 3 }, () =>
          runCli(['daemon', 'start', '--datadir', dataDir, ...LOOPBACK_FLAGS, '--json']),
        ),
      );
      const started = results.filter((result) => result.code === 0);
      expect(started).toHaveLength(1);
      for (const refused of results.filter((result) => result.code !== 0)) {
        expect(`${refused.stdout}${refused.message}`).toMatch(
          /already running|in use by another daemon/,
        );
      }
      const { pid } = JSON.parse(started[0].stdout) as { pid: number };
      await runCli(['daemon', 'stop', '--datadir', dataDir]);
      await waitFor(() => !isAlive(pid), 15_000, 'the daemon to exit');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
