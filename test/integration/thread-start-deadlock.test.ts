/**
 * `debug_stacks` while call threads start and blocks are committed: Node's diagnostic report
 * waits on the main thread for every worker thread to answer, and a call thread that opened the
 * chain for writing waited, at its start, for LMDB's writer lock, which the producer's batched
 * writes hold until the main thread runs their callbacks. The daemon then answered nothing
 * again (found by the JSON-RPC fuzz test, a `debug_stacks` during `anvil_mine`). Call threads
 * that stop after 10 ms idle start again for almost every call, so the three meet within seconds:
 * before the fix the daemon stopped answering in each of four tries (twice through this test,
 * within 10 s of its start).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { within } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Longest any one request may take here, far above what each takes when nothing is stuck. */
const ANSWER_DEADLINE_MS = 15_000;
const STACKS_WANTED = 150;
const CALLS_WANTED = 50;

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startTestDaemon(['--json-rpc.evm-idle', '10ms']);
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
});

const NO_ANSWER = Symbol('no answer');

/** Calls `method`, failing with its name when no answer comes within the deadline. */
async function answered(method: string, params: unknown[]): Promise<void> {
  const answer = await within(daemon.authedRpc.call(method, params), ANSWER_DEADLINE_MS, NO_ANSWER);
  if (answer === NO_ANSWER) {
    throw new Error(`${method} got no answer within ${ANSWER_DEADLINE_MS} ms`);
  }
}

describe('debug_stacks while call threads start and blocks are mined', () => {
  it('answers every request, and the daemon keeps answering', async () => {
    const counts = { stacks: 0, calls: 0, mined: 0 };
    const done = () => counts.stacks >= STACKS_WANTED && counts.calls >= CALLS_WANTED;
    const repeat = async (step: () => Promise<void>) => {
      while (!done()) await step();
    };
    await Promise.all([
      repeat(async () => {
        await answered('anvil_mine', [50, 100]);
        counts.mined += 50;
      }),
      repeat(async () => {
        await answered('debug_stacks', []);
        counts.stacks++;
      }),
      repeat(async () => {
        // Past the 10 ms idle time, so that the next call starts a thread again.
        await new Promise((resolve) => setTimeout(resolve, 20));
        await answered('eth_call', [{ data: '0x600160005260206000f3' }, 'latest']);
        counts.calls++;
      }),
    ]);
    expect(counts.mined).toBeGreaterThan(0);
    expect(typeof (await daemon.rpc.call('eth_blockNumber'))).toBe('string');
  }, 120_000);
});
