import { describe, expect, it } from '@jest/globals';
import type { Logger } from '../../src/daemon/logger.js';
import type { CallReply, ForwardedCall, RpcDispatcher } from '../../src/daemon/rpc/dispatcher.js';
import type { RpcThreadData } from '../../src/daemon/rpc-threads/protocol.js';
import { RpcThreadPool } from '../../src/daemon/rpc-threads/rpc-thread-pool.js';
import { waitFor } from '../helpers/processes.js';

const STAND_IN = new URL('../fixtures/rpc-threads/stand-in-thread.mjs', import.meta.url);

function recordingLogger(lines: string[]): Logger {
  const record = (message: string) => lines.push(message);
  return { error: record, warn: record, info: record, debug: record };
}

function answering(calls: ForwardedCall[]): RpcDispatcher {
  return {
    answerForwarded: async (call: ForwardedCall): Promise<CallReply> => {
      calls.push(call);
      return { result: '"pong"' };
    },
  } as unknown as RpcDispatcher;
}

const standInData = (extra: Record<string, unknown>) =>
  extra as unknown as Omit<RpcThreadData, 'index'>;

describe('RpcThreadPool', () => {
  it('answers the calls a thread passes on and starts a thread that died again', async () => {
    const calls: ForwardedCall[] = [];
    const log: string[] = [];
    const pool = await RpcThreadPool.start({
      count: 1,
      entry: STAND_IN,
      data: standInData({ starts: new SharedArrayBuffer(4) }),
      dispatcher: answering(calls),
      logger: recordingLogger(log),
    });
    try {
      await waitFor(() => calls.length === 2, 10_000, 'the restarted thread to pass its call on');
      expect(calls[0]).toMatchObject({ method: 'test_ping', context: { loopback: true } });
      expect(log).toEqual([
        'JSON-RPC thread listening',
        'JSON-RPC thread stopped; starting it again',
        'JSON-RPC thread listening',
      ]);
    } finally {
      await pool.close();
    }
  });

  it('fails to start, with the thread error, when a thread dies before it listens', async () => {
    await expect(
      RpcThreadPool.start({
        count: 2,
        entry: STAND_IN,
        data: standInData({ failAtStart: true }),
        dispatcher: answering([]),
        logger: recordingLogger([]),
      }),
    ).rejects.toThrow('stand-in thread refused to start');
  });
});
