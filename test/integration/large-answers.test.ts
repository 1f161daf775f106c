/**
 * Answers of 64 KiB and more leave the daemon in pieces (`src/daemon/rpc/reply.ts`): over HTTP
 * the head and then each piece, over WebSocket the fragments of one message. These tests read
 * such answers through every way a client gets them (raw HTTP with a pipelined request behind,
 * ethers, a batch, plain `ws`) and check the bytes, the framing and what follows on the
 * connection.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JsonRpcProvider } from 'ethers';
import WebSocket from 'ws';
import { post, RawConnection } from '../helpers/raw-http.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Code that returns 40 960 zero bytes: PUSH2 0xa000, PUSH1 0, RETURN. */
const RETURNER_CODE = '0x61a0006000f3';
const RETURNER = `0x${'5a'.repeat(20)}`;
const RETURNED = `0x${'00'.repeat(0xa000)}`;
const CALL = { jsonrpc: '2.0', method: 'eth_call', params: [{ to: RETURNER }, 'latest'] };

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startTestDaemon();
  await daemon.authedRpc.call('anvil_setCode', [RETURNER, RETURNER_CODE]);
});

afterAll(async () => {
  await daemon?.stop();
});

describe('an answer of 80 KiB', () => {
  it('is framed exactly over HTTP, and the pipelined request behind it is answered after it', async () => {
    const connection = await RawConnection.open(daemon.endpoints.http);
    try {
      connection.write(
        post(JSON.stringify({ ...CALL, id: 1 })) +
          post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] })),
      );
      const [large, small] = await connection.responses(2);
      expect(large.status).toBe(200);
      expect(Number(/content-length: (\d+)/i.exec(large.headers)?.[1])).toBe(
        Buffer.byteLength(large.body),
      );
      expect(JSON.parse(large.body)).toEqual({ jsonrpc: '2.0', id: 1, result: RETURNED });
      expect(JSON.parse(small.body)).toMatchObject({ id: 2, result: expect.any(String) });
    } finally {
      connection.end();
    }
  });

  it('reaches ethers whole, alone and in a batch beside small answers', async () => {
    const provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
      staticNetwork: true,
      batchMaxCount: 10,
    });
    try {
      const [alone, chainId, inBatch] = await Promise.all([
        provider.call({ to: RETURNER }),
        provider.send('eth_chainId', []),
        provider.call({ to: RETURNER, blockTag: 'latest' }),
      ]);
      expect(alone).toBe(RETURNED);
      expect(inBatch).toBe(RETURNED);
      expect(chainId).toMatch(/^0x[0-9a-f]+$/);
    } finally {
      provider.destroy();
    }
  });

  it('is one WebSocket message, and the connection goes on after it', async () => {
    const socket = new WebSocket(daemon.endpoints.ws);
    try {
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      // Answers over WebSocket come as they are ready: the call runs on a call thread.
      const messages = new Map<string, unknown>();
      const twoMessages = new Promise<void>((resolve) => {
        socket.on('message', (data) => {
          const message = JSON.parse(String(data)) as { id: string };
          messages.set(message.id, message);
          if (messages.size === 2) resolve();
        });
      });
      socket.send(JSON.stringify({ ...CALL, id: 'large' }));
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'small', method: 'eth_chainId' }));
      await twoMessages;
      expect(messages.get('large')).toEqual({ jsonrpc: '2.0', id: 'large', result: RETURNED });
      expect(messages.get('small')).toMatchObject({ result: expect.any(String) });
      const after = new Promise<unknown>((resolve) =>
        socket.once('message', (data) => resolve(JSON.parse(String(data)))),
      );
      socket.send(JSON.stringify({ ...CALL, id: 'again' }));
      expect(await after).toEqual({ jsonrpc: '2.0', id: 'again', result: RETURNED });
    } finally {
      socket.close();
    }
  });

  it('in a raw batch keeps every answer in its place', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
      { ...CALL, id: 'b' },
      { ...CALL, id: 'c' },
      { jsonrpc: '2.0', id: 'd', method: 'eth_blockNumber', params: [] },
    ];
    const connection = await RawConnection.open(daemon.endpoints.http);
    try {
      connection.write(post(JSON.stringify(batch)));
      const [answer] = await connection.responses(1);
      const answers = JSON.parse(answer.body) as Array<{ id: string; result: string }>;
      expect(answers.map((each) => each.id)).toEqual(['a', 'b', 'c', 'd']);
      expect(answers[1].result).toBe(RETURNED);
      expect(answers[2].result).toBe(RETURNED);
    } finally {
      connection.end();
    }
  });
});
