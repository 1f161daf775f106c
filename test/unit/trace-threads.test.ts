/** The trace threads' queue, its limit, and the time limit that replaces a stuck thread. */
import { describe, expect, it, jest } from '@jest/globals';
import { LimitExceededError } from '../../src/shared/errors.js';
import type { TraceJob } from '../../src/daemon/trace/trace-protocol.js';
import type { TraceOptions } from '../../src/daemon/trace/trace-options.js';
import { TraceThreads } from '../../src/daemon/trace/trace-threads.js';

const STUB = new URL('../fixtures/threads/trace-thread-stub.mjs', import.meta.url);

function threads(maxThreads: number, maxQueued: number): TraceThreads {
  return new TraceThreads({
    entry: STUB,
    data: {
      dataDir: '/nonexistent',
      sharedHead: new SharedArrayBuffer(8),
      chain: { chainId: 1n, blockGasLimit: 1n, minGasPrice: 1n, callGasCap: 1n },
      resultMaxBytes: 1_000_000,
    },
    maxThreads,
    maxQueued,
  });
}

const options = (timeoutMs: number): TraceOptions => ({
  tracer: { name: 'noopTracer' },
  timeoutMs,
});
const echo = (number: bigint): TraceJob => ({ kind: 'block', number });
const hang: TraceJob = { kind: 'blockRlp', rlp: new Uint8Array() };

describe('trace threads', () => {
  it('queue traces past the threads, refuse them past the queue, and replace a stuck thread', async () => {
    const pool = threads(1, 1);
    const stuck = pool.run(hang, options(100));
    const queued = pool.run(echo(7n), options(60_000));
    await expect(pool.run(echo(8n), options(60_000))).rejects.toThrow(
      new LimitExceededError(
        'too many traces queued: 1 wait for a trace thread (--json-rpc.trace-queue)',
      ),
    );
    // The queued trace runs once the stuck one has hit its time limit, on a fresh thread.
    const order: string[] = [];
    await Promise.all([
      stuck.catch((error: unknown) => order.push(`stuck: ${(error as Error).message}`)),
      queued.then((result) => order.push(`queued: ${result.pieces.join('')}`)),
    ]);
    expect(order).toEqual(['stuck: execution timeout', 'queued: 7']);
    expect((await pool.run(echo(9n), options(60_000))).pieces).toEqual(['9']);
  });

  it('hold a timeout past what a Node timer takes to the longest one instead of 1 ms', async () => {
    // Worker messages must still arrive: only the timers are fake.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    try {
      const pool = threads(1, 0);
      const longest = 2 ** 31 - 1;
      let outcome = 'running';
      const stuck = pool.run(hang, options(597 * 3_600_000)).catch((error: unknown) => {
        outcome = (error as Error).message;
      });
      // The time limit starts with the thread's first transaction.
      while (jest.getTimerCount() === 0) await new Promise((resolve) => setImmediate(resolve));
      jest.advanceTimersByTime(longest - 1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(outcome).toBe('running');
      jest.advanceTimersByTime(1);
      await stuck;
      expect(outcome).toBe('execution timeout');
    } finally {
      jest.useRealTimers();
    }
  });
});
