/** The trace threads' queue, its limit, and the time limit that replaces a stuck thread. */
import { describe, expect, it } from '@jest/globals';
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
      queued.then((result) => order.push(`queued: ${result}`)),
    ]);
    expect(order).toEqual(['stuck: execution timeout', 'queued: 7']);
    expect(await pool.run(echo(9n), options(60_000))).toBe(9n);
  });
});
