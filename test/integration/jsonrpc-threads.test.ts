/**
 * JSON-RPC threads against the real daemon: several keep-alive connections, which the kernel
 * spreads over the main thread's socket and the thread's. Each connection must see the same
 * node: the same answers to calls a thread passes to the main thread, every block and receipt
 * once any connection has seen it, and reads that go on while another connection's call runs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import {
  devWallet,
  signDynamicFeeTx,
  waitForReceipt,
  type RawReceipt,
} from '../helpers/dev-chain.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Connections: with two serving threads, all of them on one thread has odds of 2 in 2^16. */
const CONNECTIONS = 16;
/** JUMPDEST PUSH1 0 JUMP: creation code that loops until its gas is spent. */
const ENDLESS_LOOP = '0x5b600056';
const LONG_CALL_GAS = 50_000_000;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';

describe('JSON-RPC threads', () => {
  let daemon: TestDaemon;
  let connections: HttpRpcClient[];

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--json-rpc.http-threads',
      '1',
      '--block-time',
      '0',
      '--json-rpc.gas-cap',
      String(LONG_CALL_GAS),
    ]);
    connections = Array.from(
      { length: CONNECTIONS },
      () => new HttpRpcClient(daemon.endpoints.http, { token: daemon.token, connections: 1 }),
    );
    await Promise.all(connections.map((connection) => connection.call('web3_clientVersion')));
  });

  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    await daemon.stop();
  });

  it('keeps answering reads on other connections while one runs a long eth_call', async () => {
    const [first, ...others] = connections;
    let running = true;
    const long = first
      .call('eth_call', [{ data: ENDLESS_LOOP, gas: `0x${LONG_CALL_GAS.toString(16)}` }, 'latest'])
      .catch((error: Error) => error)
      .finally(() => {
        running = false;
      });
    let answeredMeanwhile = 0;
    await Promise.all(
      others.map(async (connection) => {
        while (running) {
          await connection.call('eth_blockNumber');
          if (running) answeredMeanwhile++;
        }
      }),
    );
    expect(String(await long)).toContain('out of gas');
    // One thread could answer at most the requests that arrived before the call began.
    expect(answeredMeanwhile).toBeGreaterThan(200);
  });

  it('shows a block and its receipts on every connection once one connection has', async () => {
    const wallet = devWallet(3);
    const start = await connections[0].call<string>('eth_getTransactionCount', [
      wallet.address,
      'latest',
    ]);
    let expectedBalance = BigInt(
      await connections[0].call<string>('eth_getBalance', [RECIPIENT, 'latest']),
    );
    for (let i = 0; i < 8; i++) {
      const sender = connections[i % CONNECTIONS];
      const raw = await signDynamicFeeTx(wallet, {
        to: RECIPIENT,
        value: 1000n + BigInt(i),
        nonce: Number(start) + i,
      });
      const hash = await sender.call<string>('eth_sendRawTransaction', [raw]);
      const receipt = await waitForReceipt(sender, hash);
      expectedBalance += 1000n + BigInt(i);
      for (const connection of connections) {
        const [seen, head, block, balance] = await Promise.all([
          connection.call<RawReceipt | null>('eth_getTransactionReceipt', [hash]),
          connection.call<string>('eth_blockNumber'),
          connection.call<{ hash: string } | null>('eth_getBlockByNumber', [
            receipt.blockNumber,
            false,
          ]),
          connection.call<string>('eth_getBalance', [RECIPIENT, 'latest']),
        ]);
        expect(seen?.blockHash).toBe(receipt.blockHash);
        expect(BigInt(head)).toBeGreaterThanOrEqual(BigInt(receipt.blockNumber));
        expect(block?.hash).toBe(receipt.blockHash);
        expect(BigInt(balance)).toBe(expectedBalance);
      }
    }
  });

  it('answers the same on every connection, for calls a thread serves and calls it passes on', async () => {
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'personal_listAccounts', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'txpool_status', params: [] },
      { jsonrpc: '2.0', id: 4, method: 'eth_getBalance', params: ['0x12'] },
      { jsonrpc: '2.0', id: 5, method: 'eth_getTransactionCount', params: ['0x12'] },
      { jsonrpc: '2.0', id: 6, method: 'eth_noSuchMethod', params: [] },
      { jsonrpc: '2.0', id: 7, method: 'eth_coinbase', params: [] },
      { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 8, method: 'eth_compileSolidity', params: [] },
    ]);
    const anonymous = new HttpRpcClient(daemon.endpoints.http, { connections: CONNECTIONS });
    try {
      const answers = await Promise.all(
        connections.map(async (connection) => {
          const [withToken, withoutToken] = await Promise.all([
            connection.post(batch),
            anonymous.post(batch),
          ]);
          return { withToken: withToken.body, withoutToken: withoutToken.body };
        }),
      );
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      const byId = new Map(
        (
          answers[0].withToken as Array<{ id: number; result?: unknown; error?: { code: number } }>
        ).map((entry) => [entry.id, entry]),
      );
      expect(byId.size).toBe(8);
      expect(byId.get(1)?.result).toBe('0x2328');
      expect(byId.get(2)?.result).toEqual(expect.arrayContaining([DEV_ADDRESSES[0].toLowerCase()]));
      expect(byId.get(3)?.result).toEqual({ pending: '0x0', queued: '0x0' });
      expect(byId.get(4)?.error?.code).toBe(-32602);
      expect(byId.get(5)?.error?.code).toBe(-32602);
      expect(byId.get(6)?.error?.code).toBe(-32601);
      expect(byId.get(7)?.result).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(byId.get(8)?.error?.code).toBe(-32601);
      const denied = (
        answers[0].withoutToken as Array<{ id: number; error?: { code: number } }>
      ).find((entry) => entry.id === 2);
      expect(denied?.error?.code).toBe(-32001);
    } finally {
      await anonymous.close();
    }
  });
});
