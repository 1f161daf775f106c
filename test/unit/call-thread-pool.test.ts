import { afterEach, describe, expect, it } from '@jest/globals';
import { Address } from '@ethereumjs/util';
import { CallThreadPool } from '../../src/daemon/call-threads/call-thread-pool.js';
import type { CallThreadData } from '../../src/daemon/call-threads/protocol.js';
import type { CallExecution } from '../../src/daemon/chain/chain-reader.js';
import { ExecutionRevertedError } from '../../src/daemon/errors.js';
import type { Logger } from '../../src/daemon/logger.js';
import { waitFor } from '../helpers/processes.js';

const STAND_IN = new URL('../fixtures/call-threads/stand-in-thread.mjs', import.meta.url);

function recordingLogger(lines: string[]): Logger {
  const record = (message: string) => lines.push(message);
  return { error: record, warn: record, info: record, debug: record };
}

/** The main thread's own execution: answers so a test can tell it ran. */
const local: CallExecution = {
  call: async () => ({ result: { returnData: new Uint8Array([0x11]), gasUsed: 1n } }),
  estimateGas: async () => 99n,
};

const standInData = (extra: Record<string, unknown>) =>
  extra as unknown as Omit<CallThreadData, 'index' | 'recoveryPort'>;

const to = new Address(new Uint8Array(20).fill(0xaa));

describe('CallThreadPool', () => {
  let pool: CallThreadPool | undefined;
  afterEach(() => pool?.close());

  it('runs calls and estimates on its threads, and turns failures into the node errors', async () => {
    const log: string[] = [];
    pool = await CallThreadPool.start({
      count: 2,
      entry: STAND_IN,
      data: standInData({ starts: new SharedArrayBuffer(4) }),
      local,
      logger: recordingLogger(log),
    });
    expect(log).toEqual(['call thread ready', 'call thread ready']);
    const data = new Uint8Array([1, 2, 3]);
    expect(await pool.call({ to, data }, 5n)).toEqual({
      result: { returnData: data, gasUsed: 7n },
    });
    expect(await pool.estimateGas({ to }, 5n)).toBeGreaterThanOrEqual(21_000n);
    const reverted = await pool.call({ to, gas: 1n }, 5n).catch((error: unknown) => error);
    expect(reverted).toBeInstanceOf(ExecutionRevertedError);
    expect((reverted as ExecutionRevertedError).data).toBe('0xdead');
  });

  it('runs jobs on the main thread while no thread is ready', async () => {
    const log: string[] = [];
    pool = await CallThreadPool.start({
      count: 1,
      entry: STAND_IN,
      data: standInData({ failAtStart: true }),
      local,
      logger: recordingLogger(log),
    });
    expect(log).toEqual(['call thread failed to start']);
    expect(await pool.estimateGas({ to }, 1n)).toBe(99n);
  });

  it('fails the job a dying thread had in hand, and starts the thread again', async () => {
    const log: string[] = [];
    pool = await CallThreadPool.start({
      count: 1,
      entry: STAND_IN,
      data: standInData({ starts: new SharedArrayBuffer(4) }),
      local,
      logger: recordingLogger(log),
    });
    await expect(pool.call({ to, gas: 666n }, 1n)).rejects.toThrow(
      'call thread 1 stopped while running the call',
    );
    await waitFor(() => log.length === 3, 10_000, 'the thread to be started again');
    expect(log).toEqual([
      'call thread ready',
      'call thread stopped; starting it again',
      'call thread ready',
    ]);
    expect(await pool.estimateGas({ to }, 1n)).toBe(21_001n);
  });
});
