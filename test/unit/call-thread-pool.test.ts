import { afterEach, describe, expect, it } from '@jest/globals';
import { Address } from '@ethereumjs/util';
import type { MessagePort } from 'node:worker_threads';
import {
  AFTER_BURST_QUIET_MS,
  CallThreadPool,
} from '../../src/daemon/call-threads/call-thread-pool.js';
import type { CallThreadData } from '../../src/daemon/call-threads/protocol.js';
import type { CallExecution } from '../../src/daemon/chain/chain-reader.js';
import { ExecutionRevertedError, LimitExceededError } from '../../src/shared/errors.js';
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
  createAccessList: async () => ({ accessList: [], gasUsed: 0n }),
  simulate: async () => [],
};

const to = new Address(new Uint8Array(20).fill(0xaa));

/** A pool of stand-in threads that logs into `log`. */
function startPool(
  log: string[],
  count: number,
  data: Record<string, unknown>,
  timeoutMs = 0,
  limits = { maxQueued: 1_000, maxPerCaller: 1_000 },
  idleMs = 0,
  recovery?: { lend(port: MessagePort): void },
): Promise<CallThreadPool> {
  return CallThreadPool.start({
    count,
    entry: STAND_IN,
    data: data as unknown as Omit<CallThreadData, 'index' | 'recoveryPort'>,
    local,
    timeoutMs,
    limits,
    logger: recordingLogger(log),
    idleMs,
    recovery,
  });
}

const NO_LIMITS = { maxQueued: 1_000, maxPerCaller: 1_000 };

/**
 * The time limit of tests in which a second thread must start and answer before the stuck job's
 * limit ends it: long enough for a worker's start on a machine busy with other tests.
 */
const ROOM_TO_START_MS = 3_000;

/** Two threads that stay once started, with ROOM_TO_START_MS as the time limit. */
function startTwoWithRoomToStart(log: string[]): Promise<CallThreadPool> {
  return startPool(
    log,
    2,
    { starts: new SharedArrayBuffer(4) },
    ROOM_TO_START_MS,
    NO_LIMITS,
    60_000,
  );
}

/**
 * Waits for the pool's one thread to be ready again after `event` (logged), and checks that
 * its second instance answers.
 */
async function expectStartedAgain(pool: CallThreadPool, log: string[], event: string) {
  await waitFor(() => log.length === 3, 10_000, 'the thread to be started again');
  expect(log).toEqual(['call thread ready', event, 'call thread ready']);
  expect(await pool.estimateGas({ to }, 1n)).toBe(21_001n);
}

describe('CallThreadPool', () => {
  let pool: CallThreadPool | undefined;
  afterEach(() => pool?.close());

  it('runs calls and estimates on its threads, and turns failures into the node errors', async () => {
    const log: string[] = [];
    pool = await startPool(log, 2, { starts: new SharedArrayBuffer(4) });
    expect(log).toEqual(['call thread ready', 'call thread ready']);
    const data = new Uint8Array([1, 2, 3]);
    expect(await pool.call({ to, data }, 5n)).toEqual({
      result: { returnData: data, gasUsed: 1n },
    });
    expect(await pool.estimateGas({ to }, 5n)).toBeGreaterThanOrEqual(21_000n);
    const reverted = await pool.call({ to, gas: 1n }, 5n).catch((error: unknown) => error);
    expect(reverted).toBeInstanceOf(ExecutionRevertedError);
    expect((reverted as ExecutionRevertedError).data).toBe('0xdead');
  });

  it('runs jobs on the main thread while no thread is ready', async () => {
    const log: string[] = [];
    pool = await startPool(log, 1, { failAtStart: true });
    expect(log).toEqual(['call thread failed to start']);
    expect(await pool.estimateGas({ to }, 1n)).toBe(99n);
  });

  it('fails the job a dying thread had in hand, and starts the thread again', async () => {
    const log: string[] = [];
    pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) });
    await expect(pool.call({ to, gas: 666n }, 1n)).rejects.toThrow(
      'call thread 1 stopped while running the call',
    );
    await expectStartedAgain(pool, log, 'call thread stopped; starting it again');
  });

  it('refuses calls past the per-caller and node-wide bounds, at once', async () => {
    const log: string[] = [];
    pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) }, 300, {
      maxQueued: 3,
      maxPerCaller: 2,
    });
    // The thread runs a's stuck job; a's next, b's and c's wait.
    const stuck = pool.call({ to, gas: 777n }, 1n, 'a').catch((error: unknown) => error);
    await waitFor(() => pool!.queued === 0, 10_000, 'the stuck job to be handed over');
    const held = pool.estimateGas({ to }, 1n, 'a');
    await expect(pool.estimateGas({ to }, 1n, 'a')).rejects.toThrow(
      'too many calls in flight: this client has 2 eth_call/eth_estimateGas waiting or running, the limit per client (--json-rpc.evm-queue-per-client)',
    );
    const waiting = [pool.estimateGas({ to }, 1n, 'b'), pool.estimateGas({ to }, 1n, 'c')];
    await expect(pool.estimateGas({ to }, 1n, 'd')).rejects.toThrow(
      "too many calls queued: 3 eth_call/eth_estimateGas wait for a call thread, the node's limit (--json-rpc.evm-queue)",
    );
    expect(await stuck).toBeInstanceOf(LimitExceededError);
    expect(await held).toBe(21_001n);
    expect(await Promise.all(waiting)).toEqual([21_001n, 21_001n]);
    // Answered calls no longer count against their caller.
    expect(await pool.estimateGas({ to }, 1n, 'a')).toBe(21_001n);
  });

  it('aborts a job past the time limit, starts its thread again and hands out the rest', async () => {
    const log: string[] = [];
    pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) }, 300);
    const stuck = pool.call({ to, gas: 777n }, 1n).catch((error: unknown) => error);
    const behind = pool.estimateGas({ to }, 1n);
    const error = await stuck;
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as Error).message).toBe(
      'execution aborted (timeout = 300ms): the call ran longer than --json-rpc.evm-timeout allows',
    );
    // The job behind it waited for the thread's second instance rather than running here.
    expect(await behind).toBe(21_001n);
    await expectStartedAgain(pool, log, 'call thread terminated to end a call past the time limit');
  });

  describe('batches', () => {
    const settle = (promise: Promise<unknown>) =>
      promise.then(
        (value) => value,
        (error: Error) => `${error.constructor.name}: ${error.message}`,
      );

    it('hands the calls of one turn to a thread together, and a job that throws fails alone', async () => {
      const log: string[] = [];
      pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) });
      const first = new Uint8Array([1]);
      const last = new Uint8Array([2]);
      const answers = await Promise.all([
        settle(pool.call({ to, data: first }, 1n)),
        settle(pool.call({ to, gas: 3n }, 1n)),
        settle(pool.call({ to, gas: 1n }, 1n)),
        settle(pool.call({ to, data: last }, 1n)),
      ]);
      // The gas used the stand-in reports is the size of the batch the call came in.
      expect(answers).toEqual([
        { result: { returnData: first, gasUsed: 4n } },
        'Error: call thread: stand-in job failed',
        'ExecutionRevertedError: execution reverted',
        { result: { returnData: last, gasUsed: 4n } },
      ]);
      expect(await pool.call({ to, data: last }, 1n)).toEqual({
        result: { returnData: last, gasUsed: 1n },
      });
    });

    it('takes back the jobs behind a slow one, for another thread', async () => {
      const log: string[] = [];
      pool = await startTwoWithRoomToStart(log);
      const order: string[] = [];
      // Both wait for the first thread to start, and go to it as one batch.
      const stuck = settle(pool.call({ to, gas: 777n }, 1n)).finally(() => order.push('stuck'));
      const behind = settle(pool.estimateGas({ to }, 1n)).finally(() => order.push('behind'));
      // Taken back while the stuck job runs, it starts the second thread and runs there.
      expect(await behind).toBe(21_001n);
      expect(await stuck).toBe(
        'LimitExceededError: execution aborted (timeout = 3s): the call ran longer than --json-rpc.evm-timeout allows',
      );
      expect(order).toEqual(['behind', 'stuck']);
    });

    it('runs again the jobs of a batch whose thread was terminated for the time limit', async () => {
      const log: string[] = [];
      pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) }, 300);
      // The stand-in answers a batch once it is done: the answer before the stuck job is lost
      // with the thread, and the job after it is taken back; both run on its next instance.
      const answers = await Promise.all([
        settle(pool.estimateGas({ to }, 1n)),
        settle(pool.call({ to, gas: 777n }, 1n)),
        settle(pool.estimateGas({ to }, 1n)),
      ]);
      expect(answers).toEqual([
        21_001n,
        'LimitExceededError: execution aborted (timeout = 300ms): the call ran longer than --json-rpc.evm-timeout allows',
        21_001n,
      ]);
    });

    it('fails only the job a thread died running, and runs the rest of its batch', async () => {
      const log: string[] = [];
      pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) });
      const answers = await Promise.all([
        settle(pool.estimateGas({ to }, 1n)),
        settle(pool.call({ to, gas: 666n }, 1n)),
        settle(pool.estimateGas({ to }, 1n)),
      ]);
      // With the thread down, the two others run on the main thread (which answers 99).
      expect(answers).toEqual([99n, 'Error: call thread 1 stopped while running the call', 99n]);
      await expectStartedAgain(pool, log, 'call thread stopped; starting it again');
    });
  });

  describe('with an idle limit', () => {
    it('starts a thread for the first job, stops it once idle and starts it again for the next', async () => {
      const log: string[] = [];
      pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) }, 0, NO_LIMITS, 200);
      expect(log).toEqual([]);
      // The job waits for the thread rather than running on the main thread (which answers 99).
      expect(await pool.estimateGas({ to }, 1n)).toBe(21_000n);
      await waitFor(() => log.length === 2, 10_000, 'the idle thread to stop');
      expect(log).toEqual(['call thread ready', 'call thread stopped after idling']);
      expect(await pool.estimateGas({ to }, 1n)).toBe(21_001n);
      expect(log).toEqual([
        'call thread ready',
        'call thread stopped after idling',
        'call thread ready',
      ]);
    });

    it('lends sender recovery its port as soon as the thread serves recoveries', async () => {
      const log: string[] = [];
      const lent: MessagePort[] = [];
      const data = { starts: new SharedArrayBuffer(4), recoveringFirst: true };
      pool = await startPool(log, 1, data, 0, NO_LIMITS, 60_000, {
        lend: (port) => void lent.push(port),
      });
      pool.wake();
      await waitFor(() => lent.length === 1, 10_000, 'the port to be lent');
      expect(log).toEqual([]);
      lent[0].postMessage('ready');
      await waitFor(() => log.length === 1, 10_000, 'the thread to be ready');
      expect(log).toEqual(['call thread ready']);
      expect(lent).toHaveLength(1);
      lent[0].close();
    });

    it('starts a thread when woken for sender recovery, without a job', async () => {
      const log: string[] = [];
      pool = await startPool(log, 2, { starts: new SharedArrayBuffer(4) }, 0, NO_LIMITS, 200);
      pool.wake();
      await waitFor(() => log.length === 1, 10_000, 'a thread to start');
      // One thread serves what one thread can: the second waits for a job that finds it busy.
      expect(log).toEqual(['call thread ready']);
      await waitFor(() => log.length === 2, 10_000, 'the idle thread to stop');
      expect(log[1]).toBe('call thread stopped after idling');
    });

    it('stops a thread that became ready after the idle time ran out', async () => {
      const log: string[] = [];
      pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) }, 0, NO_LIMITS, 1);
      pool.wake();
      await waitFor(() => log.length === 2, 10_000, 'the thread to start and stop');
      expect(log).toEqual(['call thread ready', 'call thread stopped after idling']);
    });

    it('stops the threads when a burst is over, unless a job came within the idle time', async () => {
      const log: string[] = [];
      pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) }, 0, NO_LIMITS, 60_000);
      pool.wake();
      await waitFor(() => log.length === 1, 10_000, 'the thread to start');
      pool.releaseAfterRecoveries();
      await waitFor(() => log.length === 2, 10_000, 'the thread to stop');
      expect(await pool.estimateGas({ to }, 1n)).toBe(21_001n);
      pool.releaseAfterRecoveries();
      expect(log).toEqual([
        'call thread ready',
        'call thread stopped after idling',
        'call thread ready',
      ]);
      // Still running: the call just answered went to it.
      expect(await pool.estimateGas({ to }, 1n)).toBe(21_001n);
    });

    it('keeps the threads after a burst when the next one begins within the quiet time', async () => {
      const log: string[] = [];
      pool = await startPool(log, 1, { starts: new SharedArrayBuffer(4) }, 0, NO_LIMITS, 60_000);
      pool.wake();
      await waitFor(() => log.length === 1, 10_000, 'the thread to start');
      pool.releaseAfterRecoveries();
      // The next burst's first sender recoveries.
      pool.wake();
      // Nothing to wait for but time: the stop would come AFTER_BURST_QUIET_MS after the release.
      await new Promise((resolve) => setTimeout(resolve, AFTER_BURST_QUIET_MS + 500));
      expect(log).toEqual(['call thread ready']);
      pool.releaseAfterRecoveries();
      await waitFor(() => log.length === 2, 10_000, 'the thread to stop');
      expect(log).toEqual(['call thread ready', 'call thread stopped after idling']);
    });

    it('starts another thread only while every running one is busy', async () => {
      const log: string[] = [];
      pool = await startTwoWithRoomToStart(log);
      const stuck = pool.call({ to, gas: 777n }, 1n).catch((error: unknown) => error);
      await waitFor(() => log.length === 1, 10_000, 'the first thread to start');
      expect(await pool.estimateGas({ to }, 1n)).toBe(21_001n);
      expect(log).toEqual(['call thread ready', 'call thread ready']);
      expect(await stuck).toBeInstanceOf(LimitExceededError);
    });
  });
});
