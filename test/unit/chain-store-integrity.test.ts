import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { open } from 'lmdb';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { lmdbFileProblem } from '../../src/daemon/chain/lmdb-file.js';
import {
  COMMIT_RETRY_BASE_MS,
  COMMIT_RETRY_CAP_MS,
  ProductionHealth,
} from '../../src/daemon/chain/production-health.js';
import { DamagedStoreError, StorageError } from '../../src/shared/errors.js';
import { tempDataDir } from './chain-fixtures.js';

const GROWING_WRITER = new URL('../fixtures/lmdb/growing-writer.mjs', import.meta.url);

describe('chain store checks at start', () => {
  let dir: string;
  let cleanup: () => void;
  let dataFile: string;
  beforeEach(async () => {
    ({ dir, cleanup } = tempDataDir());
    dataFile = join(dir, 'chain', 'data.mdb');
    await (await Chain.open({ dataDir: dir, genesis: devGenesis() })).close();
  });
  afterEach(() => cleanup());

  it('accepts a sound store and writes the chain marker', () => {
    expect(lmdbFileProblem(dataFile)).toBeUndefined();
    expect(existsSync(join(dir, 'chain-identity.json'))).toBe(true);
  });

  it('reads the LMDB header: empty, truncated, overwritten, missing', () => {
    const size = statSync(dataFile).size;
    truncateSync(dataFile, size - 4096);
    expect(lmdbFileProblem(dataFile)).toMatch(
      /^is truncated \(\d+ bytes, its header needs at least \d+\)$/,
    );
    writeFileSync(dataFile, randomBytes(size));
    expect(lmdbFileProblem(dataFile)).toMatch(/^has no valid LMDB header/);
    truncateSync(dataFile, 0);
    expect(lmdbFileProblem(dataFile)).toBe('is empty (0 bytes)');
    rmSync(dataFile);
    expect(lmdbFileProblem(dataFile)).toBe('is missing');
  });

  it('reads a file another thread keeps growing as sound, wherever its commits fall', async () => {
    const path = join(dir, 'growing');
    const writer = new Worker(GROWING_WRITER, { workerData: path });
    const exited = new Promise<number>((resolve) => writer.once('exit', resolve));
    const ready = new Promise<void>((resolve) => writer.once('message', () => resolve()));
    try {
      // A writer that fails fails the test instead of leaving it waiting.
      await Promise.race([
        ready,
        exited.then((code) => {
          throw new Error(`the writer ended (exit code ${code}) before its first commit`);
        }),
      ]);
      const problems = new Set<string>();
      for (let check = 0; check < 20_000; check += 1) {
        const problem = lmdbFileProblem(join(path, 'data.mdb'));
        if (problem !== undefined) problems.add(problem);
      }
      expect([...problems]).toEqual([]);
    } finally {
      writer.postMessage('stop');
      await exited;
    }
  });

  it('never writes a new genesis into a directory that held a chain', async () => {
    rmSync(join(dir, 'chain'), { recursive: true });
    // A sound but empty LMDB environment where the chain was.
    const root = open({ path: join(dir, 'chain'), compression: false });
    await root.put('other', 1);
    await root.close();
    const opening = Chain.open({ dataDir: dir, genesis: devGenesis() });
    await expect(opening).rejects.toThrow(DamagedStoreError);
    await expect(opening).rejects.toThrow(/chain store .*data\.mdb holds no chain/);
  });

  it('refuses a store whose genesis is not the one the marker names', async () => {
    writeFileSync(
      join(dir, 'chain-identity.json'),
      JSON.stringify({ genesisHash: `0x${'11'.repeat(32)}`, chainId: '9000' }),
    );
    await expect(Chain.open({ dataDir: dir, genesis: devGenesis() })).rejects.toThrow(
      /was created for genesis 0x1111/,
    );
  });
});

describe('production health', () => {
  it('logs the halt once, backs off exponentially up to the cap, logs the resumption', () => {
    const lines: string[] = [];
    const logger = {
      error: (message: string) => lines.push(`error ${message}`),
      info: (message: string) => lines.push(`info ${message}`),
      debug: () => {},
    };
    const health = new ProductionHealth(logger, () => 0);
    const failure = new StorageError('failed to write block 7 to the chain store: disk full');
    const delays = Array.from({ length: 8 }, () => health.commitFailed(failure));
    expect(delays[0]).toBe(COMMIT_RETRY_BASE_MS);
    expect(delays[1]).toBe(2 * COMMIT_RETRY_BASE_MS);
    expect(delays.at(-1)).toBe(COMMIT_RETRY_CAP_MS);
    expect(health.state()).toMatchObject({
      producing: false,
      reason: failure.message,
      failures: 8,
    });
    health.committed(7n);
    health.committed(8n);
    expect(health.state()).toEqual({ producing: true });
    expect(lines).toEqual([
      'error block production stopped: the chain store cannot be written',
      'info block production resumed',
    ]);
  });
});
